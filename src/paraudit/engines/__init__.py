"""Where judge calls run. The runner always talks to a `Judge`; an engine decides which process
answers: `local` (the runner's own process) or `ray` (a pool of Ray actors per judge)."""
