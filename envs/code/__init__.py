"""Code environments (induction, abduction, deduction, fuzzing) and teacher-student synthesis."""
CODE: dict[str, str] = {}
