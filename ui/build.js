// @ts-check
/**
 * Builds the session inspector page (ui/src) into <outdir>: index.html, app.js and app.css, bundled with
 * esbuild (Preact and uPlot included: nothing is loaded from elsewhere at run time). Run by
 * `nest build session-service` (apps/session-service/webpack.config.js) into dist/apps/session-service/ui,
 * or by hand: `node ui/build.js [outdir]`.
 */
const { copyFileSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

const src = resolve(__dirname, 'src');
/** The libraries bundled into app.js / app.css, whose licences ship beside them. */
const BUNDLED = ['preact', 'uplot'];
const DEFAULT_OUTDIR = resolve(__dirname, '../dist/apps/session-service/ui');

/** @param {string} [outdir] */
async function buildUi(outdir = DEFAULT_OUTDIR) {
  const esbuild = require('esbuild');
  mkdirSync(outdir, { recursive: true });
  const result = await esbuild.build({
    entryPoints: { app: join(src, 'main.tsx') },
    outdir,
    bundle: true,
    minify: true,
    sourcemap: false,
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none', // the libraries' licences are in LICENSES.txt, named by the banner
    banner: { js: '/*! Context Ledger session inspector. Bundles Preact and uPlot (MIT): /ui/LICENSES.txt */' },
    logLevel: 'warning',
    metafile: true,
  });
  copyFileSync(join(src, 'index.html'), join(outdir, 'index.html'));
  writeFileSync(
    join(outdir, 'LICENSES.txt'),
    BUNDLED.map((name) => {
      const dir = resolve(__dirname, '../node_modules', name);
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      const text = readFileSync(join(dir, 'LICENSE'), 'utf8').trim();
      return `${name} ${pkg.version} (${pkg.license})\n\n${text}\n`;
    }).join('\n----------------------------------------\n\n'),
  );
  return result;
}

module.exports = { buildUi, DEFAULT_OUTDIR };

if (require.main === module) {
  buildUi(process.argv[2] ? resolve(process.argv[2]) : undefined).then(
    (r) => {
      const bytes = Object.values(r.metafile?.outputs ?? {}).reduce((a, o) => a + o.bytes, 0);
      console.log(`ui built: ${Math.round(bytes / 1024)} KiB`);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
