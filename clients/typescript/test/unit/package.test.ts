// One version per package: package.json's, repeated by VERSION and the changelog's first entry.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { VERSION } from "../../src/index.js";

const read = (name: string) => readFileSync(new URL(`../../${name}`, import.meta.url), "utf8");

test("package.json, VERSION and CHANGELOG.md name the same version", () => {
  const { version } = JSON.parse(read("package.json")) as { version: string };
  expect(VERSION).toBe(version);
  expect(/^## (\S+)/m.exec(read("CHANGELOG.md"))?.[1]).toBe(version);
});
