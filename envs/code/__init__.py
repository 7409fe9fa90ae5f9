"""Code environments (induction, abduction, deduction, fuzzing; code_contest: real problems graded by
their tests) and teacher-student synthesis."""
CODE: dict[str, str] = {
    "abduction": "envs.code.abduction:Abduction",
    "code_contest": "envs.code.contest:CodeContest",
    "deduction": "envs.code.deduction:Deduction",
    "fuzzing": "envs.code.fuzzing:Fuzzing",
    "induction": "envs.code.induction:Induction",
}
