"""A small MCP server (FastMCP, stdio) with two chemistry tools, for trying molx-agent's MCP client.

Run it directly (``python examples/example_mcp_server.py``, stdio) or let molx-agent start it: enable it in
``config/mcp_servers.json`` and set ``MCP_ENABLED=true``.  ``--http PORT`` serves streamable HTTP on
``http://127.0.0.1:PORT/mcp`` instead.  Tools:

- ``heavy_atom_count(smiles)``: number of heavy atoms (RDKit).
- ``ring_count(smiles)``: number of rings (RDKit), async to exercise async tool handling.
"""

from __future__ import annotations

import argparse

from mcp.server.fastmcp import FastMCP
from rdkit import Chem, RDLogger

RDLogger.DisableLog("rdApp.*")
mcp = FastMCP("molx-example-chemistry", log_level="WARNING")


def _mol(smiles: str) -> Chem.Mol:
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        raise ValueError(f"invalid SMILES: {smiles!r}")
    return mol


@mcp.tool()
def heavy_atom_count(smiles: str) -> dict:
    """Count the heavy (non-hydrogen) atoms of a molecule given as SMILES."""
    return {"smiles": smiles, "heavy_atoms": _mol(smiles).GetNumHeavyAtoms()}


@mcp.tool()
async def ring_count(smiles: str) -> dict:
    """Count the rings (SSSR) of a molecule given as SMILES."""
    return {"smiles": smiles, "rings": _mol(smiles).GetRingInfo().NumRings()}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="molx-agent example MCP server")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT")
    args = parser.parse_args()
    if args.http:
        mcp.settings.port = args.http
        mcp.run(transport="streamable-http")
    else:
        mcp.run()  # stdio transport
