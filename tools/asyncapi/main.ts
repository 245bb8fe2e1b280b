/**
 * Writes libs/contracts/asyncapi.yaml from the event schemas (libs/contracts/src/asyncapi/document.ts):
 *
 *   npm run asyncapi            # write it
 *   npm run asyncapi -- --check # exit 1 when the committed file is not what the schemas generate
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { ASYNCAPI_FILE, renderAsyncApi } from './render';

const generated = renderAsyncApi();
if (process.argv.includes('--check')) {
  const committed = readFileSync(ASYNCAPI_FILE, 'utf8');
  if (committed !== generated) {
    console.error(`${ASYNCAPI_FILE} is not what the event schemas generate: run npm run asyncapi`);
    process.exit(1);
  }
  console.log(`${ASYNCAPI_FILE} is up to date`);
} else {
  writeFileSync(ASYNCAPI_FILE, generated);
  console.log(`wrote ${ASYNCAPI_FILE}`);
}
