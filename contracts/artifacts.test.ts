import { expect, test } from "bun:test";
import { compileContracts, staleArtifacts } from "../scripts/compile-contracts.ts";

// Compiling four contracts (v3, its extension, v2 for the migration test, the tokens) takes ~20 s on a busy machine.
// The other contract tests run the artifacts on anvil with the paris rules
// (scripts/lib/anvil.ts), so bytecode using PUSH0, which XDC lacks, fails there.
test("the committed artifacts are what the sources compile to (compile-contracts --check)", () => {
  expect(staleArtifacts(compileContracts())).toEqual([]);
}, 90_000);
