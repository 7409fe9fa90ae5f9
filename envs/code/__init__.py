"""Code environments (induction, abduction, deduction, fuzzing) and teacher-student synthesis."""
CODE: dict[str, str] = {
    "abduction": "envs.code.abduction:Abduction",
    "deduction": "envs.code.deduction:Deduction",
    "fuzzing": "envs.code.fuzzing:Fuzzing",
    "induction": "envs.code.induction:Induction",
}
