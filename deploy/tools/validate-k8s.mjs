// Validates Kubernetes manifests against the API's JSON schemas (kubernetes-models, generated from the
// Kubernetes OpenAPI spec): `node deploy/tools/validate-k8s.mjs <file.yaml>...`. Prints one JSON line per
// document ({ file, index, kind, name, errors }) and exits 1 when a document is invalid or of an unknown kind.
// An ES module because kubernetes-models is ESM only (the Jest tests run it as a child process).
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import * as models from 'kubernetes-models';

/** apiVersion → the kubernetes-models namespace exporting its kinds. */
function groupOf(apiVersion) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  // kubernetes-models' root index names API groups like "apps", "policy", "autoscaling", and v1 as "v1".
  const bucket = group === '' ? models : models[group.replace(/\..*$/, '')];
  return bucket?.[version];
}

let failed = false;
for (const file of process.argv.slice(2)) {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  docs.forEach((doc, index) => {
    const result = { file, index, kind: undefined, name: undefined, errors: [] };
    if (doc.errors.length > 0) {
      result.errors = doc.errors.map((e) => `YAML: ${e.message}`);
    } else {
      const object = doc.toJS();
      result.kind = object?.kind;
      result.name = object?.metadata?.name;
      const Model = object?.apiVersion && object?.kind ? groupOf(object.apiVersion)?.[object.kind] : undefined;
      if (!Model) {
        result.errors = [`unknown apiVersion/kind: ${object?.apiVersion}/${object?.kind}`];
      } else {
        try {
          new Model(object).validate();
        } catch (error) {
          result.errors = [error instanceof Error ? error.message : String(error)];
        }
      }
    }
    if (result.errors.length > 0) failed = true;
    process.stdout.write(`${JSON.stringify(result)}\n`);
  });
}
process.exit(failed ? 1 : 0);
