"""SAR analysis: reading and cleaning compound data, chemical series and cores, R-group decomposition,
OCAT series, matched molecular pairs (mmpdb), activity cliffs (MoleculeACE definition), properties and a
self-contained HTML report.  Entry point: :func:`molx_agent.sar.pipeline.run_sar_pipeline`.

Modules: ``io`` (readers), ``columns`` (column identification, units), ``clean`` (standardisation,
pActivity, replicates, error records), ``series`` (series split, cores), ``rgroup`` (decomposition, scans),
``ocat``, ``mmp``, ``cliffs``, ``properties``, ``insights``, ``depict`` and ``report`` (HTML), ``pipeline``,
``parallel`` (process pools for large sets).  No LangChain here (see tests/test_layering.py).
"""
