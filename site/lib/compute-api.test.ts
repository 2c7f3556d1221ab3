import { expect, test } from "bun:test";
import { startCommand, unitsWord } from "./compute-api.ts";

test("the hub's start command goes through the npm script, which finds the Bun that npm install put in node_modules (issue 27)", () => {
  expect(startCommand("http://localhost:3000", "xdcabc")).toBe("npm run node-agent -- --server http://localhost:3000 --wallet xdcabc");
  expect(startCommand("http://localhost:3000", "xdcabc", { url: "http://127.0.0.1:52415/v1", model: "m" })).toBe(
    "npm run node-agent -- --server http://localhost:3000 --wallet xdcabc --backend http://127.0.0.1:52415/v1 --model m",
  );
});

test("one compute unit is '1 unit' (issue 27: '1 units')", () => {
  expect(unitsWord(1)).toBe("unit");
  expect(unitsWord(0)).toBe("units");
  expect(unitsWord(2)).toBe("units");
});
