"""Small hand-built SAR data shared by the SAR tests."""

#: A para-substituted anilide series with hand-set IC50s (µM in the header).
ANILIDES = [
    ("A1", "CC(=O)Nc1ccc(Cl)cc1", "0.010"),
    ("A2", "CC(=O)Nc1ccc(F)cc1", "0.020"),
    ("A3", "CC(=O)Nc1ccc(Br)cc1", "0.015"),
    ("A4", "CC(=O)Nc1ccc(C)cc1", "2.0"),
    ("A5", "CC(=O)Nc1ccc(OC)cc1", "5.0"),
    ("A6", "CC(=O)Nc1ccccc1", "1.0"),
    ("A7", "CCC(=O)Nc1ccc(Cl)cc1", "0.050"),
    ("A8", "CCC(=O)Nc1ccc(F)cc1", "0.080"),
    ("A9", "CCC(=O)Nc1ccc(C)cc1", "8.0"),
]
