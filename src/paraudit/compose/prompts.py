"""The generator prompts of the paper (Appendix B), as data.

The paper prints its prompts with spaces lost in extraction and two listings cut in the middle;
the text here restores the spacing word for word. Every prompt is split into parts, and each
part says whether it is PRINTED (the paper's words) or RECONSTRUCTED (written here to fill a
cut, in the paper's style and following its prose in B.2.2). tests/compose/test_prompts.py pins
every part by hash, so a change to any wording is deliberate.

Placeholders use str.format fields; the printed text contains no braces.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from paraudit.dimensions import emotion as _emotion

Origin = Literal["printed", "reconstructed"]


@dataclass(frozen=True)
class PromptPart:
    origin: Origin
    text: str


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    source: str
    """Where the paper prints it."""
    parts: tuple[PromptPart, ...]

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts)

    def render(self, **fields: str) -> str:
        return self.text.format(**fields)

    @property
    def reconstructed(self) -> bool:
        return any(p.origin == "reconstructed" for p in self.parts)


def _p(text: str) -> PromptPart:
    return PromptPart("printed", text)


def _r(text: str) -> PromptPart:
    return PromptPart("reconstructed", text)


FINAL_ANSWER_LINE = "=======FINAL ANSWER======="

# --- B.1.2: single-turn responses (printed whole) -------------------------------------------

SINGLE_TURN_RESPONSE = PromptTemplate(
    "single-turn-response",
    "Appendix B.1.2",
    (
        _p(
            "You are a friendly voice assistant. You will be given two versions of the same "
            'sentence spoken with different emotions. Sentence: "{sentence}" Emotion A: {emoA} '
            "Emotion B: {emoB} For each emotion, write what a voice assistant should say in "
            "response. The two responses should reflect the emotion they are responding to, so "
            "that someone reading them could tell which emotion they correspond to. However, "
            "they should not give away or directly state the emotion. Instead, the response "
            "should strongly but implicitly acknowledge the emotion, and it should be very clear "
            "which response corresponds to which emotion. Respond in strict JSON format with "
            'keys "A_response" and "B_response". Do not use a JSON code block. Just format your '
            "response as a JSON string."
        ),
    ),
)

# --- Listing 1: positional goal-failure injection (cut after "r_") ---------------------------

_WINO_INTRO = (
    "You are an expert at analysing and modifying spoken conversations. We are building a "
    'speech-to-speech dataset which we will call "{name}", because, like Winoground and '
    "Winograd Schema, we want to make difficult pairs that separate naive models from strong "
    "ones, based on their ability to detect certain differences that humans could easily "
    "detect. In this case the difference is in paralinguistic cues, specifically emotion.\n\n"
)

_ANNOTATE_HEAD = (
    'How to "annotate" a turn with emotion:\n\n'
    "* You must choose only ONE emotion\n\n"
    "* The emotion MUST be an item from this list: "
)
_ANNOTATE_TAIL = (
    "\n\n* I repeat, you may ONLY choose emotions from the above list, NOTHING ELSE\n\n"
    '* Annotation must be of the format HUMAN(emotion): "text" or VA(emotion): "text", e.g. '
    'HUMAN(hesitant): "I think my bag is here" or VA(empathetic): "I can check for you"\n\n'
)

POSITIONAL = PromptTemplate(
    "positional-goal-failure",
    "Listing 1 (B.2.2)",
    (
        _p(
            _WINO_INTRO.replace("{name}", "PositionalWinoSound")
            + "You will be given a text transcript of a source conversation S (i.e. a list of "
            'turns) between a human user ("HUMAN") and a voice assistant ("VA"). You must use S '
            "to create a pair of conversations, annotated with paralinguistics, which we will "
            'call a "PositionalWinoSound pair". You will go through the following process to '
            "generate this pair. Note that you have the option of giving up and saying "
            '"impossible" at any phase of the process if it is not possible to produce a '
            "suitable pair from S. Here is the process:\n\n"
            "I. EXTRACT GOALS AND FROM S:\n\n"
            "Find each human turn in S where the human states a goal. For each of these turns, "
            "find the first subsequent VA turn that responds to the goal. This should give you "
            "a list of tuples (g_1, r_1), ..., (g_N, r_N) where r_i is the reponse for goal "
            'g_i. If you can\'t get N>=2, give up and say "impossible".\n\n'
            "II. NOTE WHICH GOALS ARE UNSATISFIED:\n\n"
            "From this list, we want to create a list of enriched tuples (g_1, r_1, f_1), ..., "
            "(g_N, r_N, f_N) as follows:\n\n"
            "* for each i, check if g_i is completely satisfied by r_"
        ),
        _r(
            "i. If it is, set f_i to None. If it is not (r_i misses, ignores, gets wrong or "
            "only partly meets g_i), set f_i to a short description of the failure. If there "
            "are fewer than two failures, make small textual changes to one or more r_i so "
            "that r_i fails g_i in a way a human would clearly notice. If that is not possible "
            'without making the conversation implausible, give up and say "impossible".\n\n'
            "III. CHOOSE TWO FAILURES AND INJECT THE EMOTION SHIFT:\n\n"
            "* Pick two failures f_i and f_j with i < j. Let C be S up to and including the "
            "last HUMAN turn you keep (it must end with a HUMAN turn, at or after the human "
            "turn that follows r_j), with your small textual changes. C_A and C_B are both "
            "annotations of C: their text must be completely identical.\n\n"
            "* In C_A, the human starts with an emotion from X_options = {x_options} and "
            "changes to an emotion from Y_options = {y_options} at the first HUMAN turn after "
            "r_i, keeping an emotion from Y_options from then on.\n\n"
            "* In C_B, the human starts with an emotion from X_options and changes to an "
            "emotion from Y_options only at the first HUMAN turn after r_j, keeping an emotion "
            "from Y_options from then on. So the shift happens at a different turn in C_A and "
            "C_B.\n\n"
            "* R_A is the final VA response for C_A: it must address failure f_i, the cause of "
            "the human's shift in C_A. R_B is the final VA response for C_B: it must address "
            "failure f_j. R_A must be clearly wrong for C_B and R_B clearly wrong for C_A.\n\n"
            "* Every VA turn inside C_A and C_B is annotated too, with the same words in both.\n\n"
            "Emotions and how to use them:\n\n"
            '* "neutral" - human or VA uses this tone when there is nothing notable to '
            "express.\n\n"
            '* "hesistant" - human uses this tone when they are unsure, doubtful or reluctant. '
            "VA should never use this tone.\n\n"
            '* "frazzled" - human uses this tone when they are stressed, flustered or '
            "overwhelmed. VA should never use this tone.\n\n"
            '* "apologetic/empathetic/reassuring" - VA uses this tone when the human is upset. '
            "In R_A and R_B, VA m"
        ),
        _p(
            "ust ALWAYS acknowledge the source of the human's negative emotion.\n\n"
            "** When using this tone within C_A or C_B, VA should try to acknowledge but only "
            "if it's possible while keeping the text of C_A and C_B completely identical to "
            "each other.\n\n"
            '* "angry" - human uses this tone when they are angry, furious, pissed-off, or '
            "very irritated. VA should never use this tone.\n\n"
            '* "sad" - human uses this tone when they are sad or disappointed. VA should never '
            "use this tone.\n\n"
            '* "happy" - human uses this tone when they are feeling happy, upbeat, cheerful. VA '
            "may use this tone to mirror human's happiness, but an upset human might be put off "
            "by an overly cheerful VA.\n\n"
            + _ANNOTATE_HEAD
            + '["hesistant", "frazzled", "apologetic/empathetic/reassuring", "angry", '
            '"neutral", "sad", "happy"]'
            + _ANNOTATE_TAIL
            + "You MUST explain your reasoning before giving a final answer.\n\n"
            f'Once you\'re finished, print the line "{FINAL_ANSWER_LINE}", and then print C_A '
            '(in its entirety), R_A, then "===", then C_B (in its entirety), and R_B below. Or '
            'print "impossible" if impossible. Do not print any explanation after the FINAL '
            "ANSWER marker, just the answer please."
        ),
        _r("\n\nS:\n{source}\n"),
    ),
)

# --- Listing 2: emotional conversations (cut after "see below fo", ends after "and") ---------

CONVERSATIONS = PromptTemplate(
    "emotional-conversations",
    "Listing 2 (B.2.2)",
    (
        _p(
            _WINO_INTRO.replace("{name}", "WinoSound")
            + "You will be given a text transcript of a source conversation S (i.e. a list of "
            'turns) between a human user ("HUMAN") and a voice assistant ("VA"). Think about '
            "whether the paralinguistic emotions are obvious from the text in S, or whether "
            "they're ambiguous at times (significantly different emotions are equally "
            "plausible). If they're obvious, think about what textual signals make them "
            "obvious, and then think about small textual changes that could introduce "
            "ambiguity by removing those signals.\n\n"
            'Once you\'ve thought about that, you must create a "WinoSound pair" in the '
            "following way:\n\n"
            "* Pick an index N such that S[:N] ends with a HUMAN turn and S[N:] starts with a "
            "VA turn. N does not necessarily have to be the full length, it could even be less "
            "than half.\n\n"
            "* Use S[:N] to produce the following things:\n"
            '** "Common" text C which can be obtained by making small textual modifications to '
            "S[:N]. Note that C is still a list of turns.\n"
            "** Inputs C_A and C_B, which are obtained by annotating C with different emotions "
            "(that means every turn in C gets annotated - see below fo"
        ),
        _r(
            "r how). At least one HUMAN turn must have a different emotion in C_A than in "
            "C_B, and every emotion must be one a human could easily hear in the voice.\n"
            "** Responses R_A and R_B: the next VA turn after C_A and after C_B. R_A must be "
            "clearly right for C_A and clearly wrong for C_B, and R_B the reverse, because of "
            "the emotions alone: a reader who saw only the words of C could not tell which "
            "response fits.\n\n"
            "* The emotions of each conversation must be consistent: explain why each HUMAN "
            "emotion fits what has happened so far. If the text of S makes one emotion obvious "
            "at some turn, pick a different N and make small textual changes to S[:N] to make "
            "this easier. Textual mismatch between C_A and C_B is ILLEGAL.\n\n"
        ),
        _p(
            "Be sure to explain all your thoughts, and make sure the incongruities of [*C_A, "
            "R_B] and [*C_B, R_A] are blatantly obvious. If either [*C_A, R_B] or [*C_B, R_A] "
            'are "maybe okay", then they\'re not incongruous enough, and you have to either do '
            "better or give up. Explain why any shifts in the human's emotion are reasonable, "
            "and why the wrong pairings are blatantly wrong.\n\n"
            "If you think it is impossible to create a WinoSound-hard pair from S, you can say "
            "it's impossible. It's better to say \"impossible\" than to give a pair that isn't "
            "emotionally consistent or isn't really WinoSound-hard.\n\n"
            + _ANNOTATE_HEAD
            + '["hesistant", "frazzled", "impatient", "apologetic/empathetic/reassuring", '
            '"angry", "neutral", "sad", "happy"]'
            + _ANNOTATE_TAIL
            + f'Once you\'re finished, print the line "{FINAL_ANSWER_LINE}", and then print C_A '
            '(in its entirety), R_A, then "===", then C_B (in its entirety), and'
        ),
        _r(
            ' R_B below. Or print "impossible" if impossible. Do not print any explanation '
            "after the FINAL ANSWER marker, just the answer please.\n\nS:\n{source}\n"
        ),
    ),
)

# --- Listing 3: refine pass (printed whole) --------------------------------------------------

REFINE = PromptTemplate(
    "emotional-conversations-refine",
    "Listing 3 (B.2.2)",
    (
        _p(
            "Please look at the answer you just gave and consider whether there's anything you "
            "could refine to make it better, according to the guidelines you were given "
            "(emotionally consistent, and WinoSound-hard). If there are any such refinements, "
            "make them and give the refined answer in its entirety, else give your original "
            f'answer. Please explain your reasoning, then print the line "{FINAL_ANSWER_LINE}" '
            'followed by your answer (with "===" separating the two conversations).'
        ),
    ),
)

# --- Lexical balance of R0 vs R1 (paper §5.3, Table 4; its judge prompt is not printed) ------

LEXICAL_FACTORS = ("politeness", "specificity", "warmth", "formality", "fluency")

BALANCE = PromptTemplate(
    "response-balance",
    "written here (paper §5.3 names the check, not its prompt)",
    (
        _r(
            "You will read two candidate replies of a voice assistant to the same user. Rate "
            "each reply on its own, from 1 (very low) to 5 (very high), on each of these "
            "factors: {factors}. Rate only how the reply is written; do not guess which reply "
            "is better for the user.\n\n"
            "Reply 1: {r1}\n\nReply 2: {r2}\n\n"
            'Answer with JSON only, no code block: {{"reply1": {{"factor": score, ...}}, '
            '"reply2": {{"factor": score, ...}}}}'
        ),
    ),
)

# --- Emotion sets (B.2.2) ----------------------------------------------------------------------

POSITIONAL_X = ("neutral", "happy")
POSITIONAL_Y = ("sad", "angry", "frazzled", "hesitant")
CONVERSATION_HUMAN = ("neutral", "happy", "sad", "angry", "hesitant", "impatient", "frazzled")
# The assistant tones are the emotion plugin's data (dimensions/emotion.py).
ASSISTANT_EMOTIONS = _emotion.ASSISTANT_EMOTIONS


def nonempty_subsets(values: tuple[str, ...]) -> list[tuple[str, ...]]:
    """All non-empty subsets, in a fixed order (size, then position)."""
    return [c for k in range(1, len(values) + 1) for c in combinations(values, k)]


def option_list(values: tuple[str, ...]) -> str:
    """How an option set is written into Listing 1: the paper spells hesitant 'hesistant'."""
    spelled = ["hesistant" if v == "hesitant" else v for v in values]
    return "{" + ", ".join(spelled) + "}"


ALL_TEMPLATES = (SINGLE_TURN_RESPONSE, POSITIONAL, CONVERSATIONS, REFINE, BALANCE)
