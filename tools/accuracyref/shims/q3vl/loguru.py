"""Stand-in for loguru's logger: formats the message with str.format and
prints it to standard output."""


class _Logger:
    def _log(self, level, msg, *args):
        print(f"{level} {msg.format(*args)}")

    def info(self, msg, *args):
        self._log("INFO", msg, *args)

    def error(self, msg, *args):
        self._log("ERROR", msg, *args)

    def debug(self, msg, *args):
        pass

    def trace(self, msg, *args):
        pass


logger = _Logger()
