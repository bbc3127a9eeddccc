"""User-facing errors: the CLI prints their message on one line and exits 1, no traceback."""


class ParauditError(Exception):
    """A mistake in the user's input or environment, explained in one line."""


class DatasetError(ParauditError):
    """A dataset folder that cannot be read or written as asked."""


class VoiceError(ParauditError):
    """A voice file that is not a usable Piper model."""


class MissingExtraError(ParauditError):
    """An optional dependency is not installed; the message names the extra."""

    def __init__(self, feature: str, extra: str, module: str) -> None:
        super().__init__(
            f"{feature} needs the optional package '{module}': pip install 'paraudit[{extra}]'"
        )
        self.extra = extra
        self.module = module
