"""Czech question words, without diacritics, as the query readings tell a question by them."""

# The words that ask ("kolik stojí", "do kdy můžu"); "když", "že", "protože" start a clause of the same question.
QUESTION_WORDS = frozenset(
    "jak jaky jaka jake jakou jakeho jakem jakym jaci co ceho cemu cem cim kdo koho komu kom kym kdy kde kam odkud "
    "kudy proc kolik zda jestli".split()
)
