// @ts-check
/**
 * The webpack configuration the tests' global set-up builds each service with (`nest build <name> --webpackPath
 * test/support/build-webpack.js`): Nest's own, plus the project's webpack.config.js when nest-cli.json names one,
 * without the type check Nest adds to every build (fork-ts-checker, one whole-program check per service). The
 * code is the same; `npm test` type-checks the repository with tsc before Jest starts.
 */
const { resolve } = require('node:path');
const nestCli = require('../../nest-cli.json');

/**
 * @param {import('webpack').Configuration} options
 * @param {unknown} webpack
 */
module.exports = (options, webpack) => {
  const project = process.env.CTXLEDGER_BUILD_PROJECT;
  if (!project || !nestCli.projects[project]) throw new Error(`CTXLEDGER_BUILD_PROJECT names no project: ${project}`);
  const config = {
    ...options,
    plugins: (options.plugins ?? []).filter((plugin) => plugin?.constructor.name !== 'ForkTsCheckerWebpackPlugin'),
  };
  const own = nestCli.projects[project].compilerOptions?.webpackConfigPath;
  return own ? require(resolve(__dirname, '../..', own))(config, webpack) : config;
};
