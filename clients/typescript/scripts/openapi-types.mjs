// src/openapi.ts from docs/openapi.json (openapi-typescript), so the client's types are the API's own.
//   node scripts/openapi-types.mjs --write   regenerate (`make openapi` runs it after docs/openapi.json)
//   node scripts/openapi-types.mjs --check   exit 1 when the committed file differs from the document
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

const documentPath = new URL("../../../docs/openapi.json", import.meta.url);
const outputPath = new URL("../src/openapi.ts", import.meta.url);
const HEADER =
  "// Generated from docs/openapi.json by scripts/openapi-types.mjs (openapi-typescript); do not edit.\n" +
  "// `make openapi` writes it again; the gate fails while it differs from the document.\n\n";

export async function generate() {
  const document = JSON.parse(await readFile(documentPath, "utf8"));
  const ast = await openapiTS(document, { alphabetize: true, exportType: true });
  return HEADER + astToString(ast);
}

export async function committed() {
  return readFile(outputPath, "utf8").catch(() => "");
}

const mode = import.meta.url === pathToFileURL(process.argv[1] ?? "").href ? process.argv[2] : undefined;
if (mode === undefined) {
  // imported (test/unit/openapi-types.test.ts)
} else if (mode === "--write") {
  await writeFile(outputPath, await generate());
  console.log(`wrote ${fileURLToPath(outputPath)}`);
} else if (mode === "--check") {
  const [wanted, present] = await Promise.all([generate(), committed()]);
  if (wanted !== present) {
    console.error(
      "clients/typescript/src/openapi.ts differs from docs/openapi.json: run `make openapi` and commit the file",
    );
    process.exit(1);
  }
  console.log("clients/typescript/src/openapi.ts matches docs/openapi.json");
} else {
  console.error("usage: node scripts/openapi-types.mjs --write | --check");
  process.exit(2);
}
