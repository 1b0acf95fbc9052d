"""A stand-in for mxeval.execution, which language/mixtral-8x7b's
evaluate_mbxp.py imports: its checkers run generated code in thirteen
languages, which the stand-in does not; a log with MBXP samples fails
here, one without them (the fixtures') never calls them."""


def _not_here(*args, **kwargs):
    raise NotImplementedError("the mxeval stand-in runs no code: MBXP samples are not scored here")


check_correctness = check_correctness_cpp = check_correctness_csharp = check_correctness_go = _not_here
check_correctness_java = check_correctness_javascript = check_correctness_kotlin = _not_here
check_correctness_perl = check_correctness_php = check_correctness_ruby = _not_here
check_correctness_scala = check_correctness_swift = check_correctness_typescript = _not_here
