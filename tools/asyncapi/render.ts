import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { asyncApiDocument } from '../../libs/contracts/src/asyncapi/document';

/** Where the document is committed. */
export const ASYNCAPI_FILE = resolve(__dirname, '../../libs/contracts/asyncapi.yaml');

/** The document as YAML, exactly as `npm run asyncapi` writes it (here, not in the library: yaml is a dev dependency). */
export function renderAsyncApi(): string {
  return stringify(asyncApiDocument(), { lineWidth: 120, minContentWidth: 40, aliasDuplicateObjects: false });
}
