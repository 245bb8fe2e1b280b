import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ts from 'typescript';

const root = resolve(__dirname, '../..');

export interface ManifestDocument {
  readonly where: string;
  readonly object: { apiVersion?: string; kind?: string; [k: string]: unknown };
}

/**
 * Type-checks manifests against the Kubernetes API types of kubernetes-models with the TypeScript compiler:
 * each document becomes an object literal assigned to its kind's interface, so the compiler reports what
 * the JSON-schema validation lets through — unknown (misspelt) fields, as `kubeconform -strict` does — as
 * well as wrong types and missing required fields. Returns one message per problem, prefixed with `where`.
 */
export function k8sTypeErrors(documents: readonly ManifestDocument[]): string[] {
  const dir = mkdtempSync(join(root, '.tmp-k8s-types-'));
  try {
    const lines: string[] = [];
    documents.forEach(({ object }, i) => {
      const [group, version] = String(object.apiVersion).includes('/')
        ? String(object.apiVersion).split('/')
        : ['', String(object.apiVersion)];
      const path = `kubernetes-models/${group ? `${group.replace(/\..*$/, '')}/` : ''}${version}/${object.kind}`;
      lines.push(`import type { I${object.kind} as T${i} } from '${path}';`);
      lines.push(`export const doc${i}: T${i} = ${JSON.stringify(object, null, 2)};`);
    });
    const file = join(dir, 'manifests.ts');
    writeFileSync(file, lines.join('\n'));
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      target: ts.ScriptTarget.ES2022,
      types: [],
      baseUrl: root,
      typeRoots: [],
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (!d.file || d.start === undefined) return message;
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      const text = d.file.text.split('\n');
      // The document whose literal contains the line: the last `export const docN` at or above it.
      let doc: string | undefined;
      for (let l = line; l >= 0 && doc === undefined; l--) doc = /^export const doc(\d+)/.exec(text[l])?.[1];
      const where = doc !== undefined ? documents[Number(doc)]?.where : 'manifests';
      return `${where}: ${message}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
