"""The report's "How to read this" section: what P, O, J, the states, the cascade and each
table's statistic mean (kept apart from the page's layout in html.py)."""

from __future__ import annotations

from html import escape

from paraudit.stats.states import STATE_MEANING
from paraudit.stats.summary_model import Summary
from paraudit.stats.verdict_text import EMOTION_WORDS, words_for

_PROSE = """
<p>Each pointwise question is asked three ways: <b>P</b> (perception: {perceive}), <b>O</b>
(oracle: {told}, which response fits?) and <b>J</b>
(native judgment: hearing the audio, which response fits?). Each (item, branch, cue) unit gets
a state (P, O, J) of right/wrong, where a probe counts as right only when it is right in
<b>every order that ran</b> (both response orders; for pairwise also both context orders), so a
fixed habit such as always answering R1 is never right by the luck of one order:</p>
<ul>{states}</ul>
<p><b>Verdicts</b>, one per judge × task, follow the paper's <b>diagnostic cascade</b>, each
step read at one cue (never pooled over cues). "Above chance" means the item-level interval's
lower end is above what the best <i>deaf</i> guesser scores given the options offered (½ for
every whole answer: both branches put the same words to the judge, with different right
answers). (1) <b>Native</b> — pointwise J without a cue: <i>reliable</i> when its 95 % lower
bound is at least 80 %, <i>above chance</i>, <i>at chance</i> or <i>below chance</i>; the badge
certifies this step only. (2) <b>Recoverable</b> — pairwise J above chance with a protocol gap
whose interval excludes 0: the contrast is heard when both worlds are shown but not deployed
natively. (3) <b>Cue dependence</b> — J under a cue above chance, with a gain over no cue whose
interval excludes 0, while native J is not. (4) <b>Components</b>, per cue — which of P, O and
J are above chance (Potemkin: P and O work, J does not; perception or response-mapping
bottleneck; shortcut-like success), and, where all three work, whether failures co-occur more
than independent components would give (a permutation test over items with a family-wise 5 %
level across the five groups): if not, "no systematic failure mode", never the largest bar.
(5) <b>Behaviours</b> — position bias (first-option share ≥ 90 % or ≤ 10 %, interval excluding
50 %), order dependence (right in one response order only), ignoring the audio, repeating the
text-only choice, hearing only some human turns. The conditional Potemkin rate π110 / (π110 +
π111) is shown beside its independence baseline 1 − acc(J) and greyed where P, O or J is not
above chance. Below 30 items a task's verdict says the sample is small.</p>
<p>Accuracy is per instance (the paper's tables) and <b>strict</b>: an unparsed or refused reply
counts as wrong and is counted in its own column; a failed call (error) is no answer and is left
out — a cell with only failed calls says "no answers", never 0 %. Order-consistent accuracy is
shown beside it. Every interval resamples whole <b>items</b> (instances of one item are not
independent); the paper's per-instance Wilson interval is shown beside J accuracy. The
<b>protocol gap</b> is pairwise minus pointwise accuracy; <b>cue dependence</b> the gain from
the hard (single-turn) or transition (positional) cue over none; <b>audio sensitivity</b> how
often the pointwise choice changes when only the audio changes (a judge deaf to audio scores 0).
The <b>transcript control T</b> sees only the words, which are the same for both branches, so it
has no right answer; it measures the text-only <b>preference</b> — how often T picks the same
response in both orders, and how often that is branch 0's response (far from 50 % means the
responses are not balanced) — and <b>J–T agreement</b>: how often the native answer equals the
text-only answer (50 % for a judge that follows the audio, near 100 % for one that repeats its
text-only preference).</p>
"""


def how_to_read(summary: Summary | None = None) -> str:
    """The section's HTML (paragraphs and the list of state groups); P and O in the words of
    the summary's dimensions (emotion's, as always, when it holds only emotion)."""
    states = "".join(f"<li><b>{s}</b> — {escape(m)}</li>" for s, m in STATE_MEANING.items())
    tasks = sorted({v.task for v in summary.verdicts}) if summary is not None else []
    words = list({w.noun: w for w in (words_for(t) for t in tasks)}.values())
    if all(w is EMOTION_WORDS for w in words):
        perceive, told = "which emotion did the user sound like?", "told the emotion in text"
    else:
        perceive = "does it hear " + "; ".join(escape(w.attribute) for w in words) + "?"
        told = "told it in text"
    return (
        _PROSE.replace("{states}", states).replace("{perceive}", perceive).replace("{told}", told)
    )
