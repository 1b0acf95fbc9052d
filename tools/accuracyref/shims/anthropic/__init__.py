"""A stand-in for the anthropic SDK's two prompt constants, which
LiveCodeBench's prompt modules import at load time (deepseek-r1's
eval_accuracy.py imports them with the grader; grading never uses them)."""
HUMAN_PROMPT = "\n\nHuman:"
AI_PROMPT = "\n\nAssistant:"
