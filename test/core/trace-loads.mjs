// Preloaded with `node --import`: writes the URL of every module the process loads, ES
// modules (a load hook) and CommonJS ones (require.cache at exit), one a line, to the file
// named by TRACE_LOADS. Used by cli-loads.test.ts.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.TRACE_LOADS, url + '\\n');
  return next(url, context);
}
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
const require = createRequire(import.meta.url);
process.on('exit', () => {
  const cjs = Object.keys(require.cache).map((path) => pathToFileURL(path).href);
  appendFileSync(process.env.TRACE_LOADS, `${cjs.join('\n')}\n`);
});
