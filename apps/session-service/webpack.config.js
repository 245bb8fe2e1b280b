// @ts-check
/**
 * `nest build session-service` (webpack): Nest's own configuration, plus the session inspector page (ui/),
 * bundled by esbuild into dist/apps/session-service/ui beside main.js, which serves it at /ui. So every
 * build of the service (npm run build, npm start, the tests' global set-up) carries the page.
 */
const { resolve } = require('node:path');
const { buildUi } = require('../../ui/build');

class InspectorUiPlugin {
  /** @param {import('webpack').Compiler} compiler */
  apply(compiler) {
    const outdir = resolve(compiler.options.output.path ?? resolve(__dirname, '../../dist'), 'apps/session-service/ui');
    const build = () => buildUi(outdir).then(() => undefined);
    compiler.hooks.beforeRun.tapPromise('InspectorUiPlugin', build);
    compiler.hooks.watchRun.tapPromise('InspectorUiPlugin', build);
  }
}

/** @param {import('webpack').Configuration} options */
module.exports = (options) => ({ ...options, plugins: [...(options.plugins ?? []), new InspectorUiPlugin()] });
