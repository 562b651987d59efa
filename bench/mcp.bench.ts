import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { autocannon, type Child, fmt, replayHeaders, startChild } from './children.js';
import { machine } from './measure.js';

/**
 * `npm run bench:mcp`: one prompt over MCP (`prompts/get` on `/mcp`, one session) against
 * the same prompt from the HTTP API (`GET /api/prompts/developer?team=platform`, text), on
 * the built service over loopback (autocannon), and each against a bare node:http server
 * answering its precomputed bytes in the same run (the fastest honest baseline for each
 * request). Servers run in their own processes; autocannon runs here, alternating them.
 */

/** node:http answering one precomputed answer (body and headers) to any request but /readyz. */
const BARE_SERVER = `
const http = require('node:http');
const body = Buffer.from(process.env.BENCH_BODY);
const headers = JSON.parse(process.env.BENCH_HEADERS);
const server = http.createServer((req, res) => {
  if (req.url === '/readyz') return res.end('ok');
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { ...headers, 'content-length': body.length });
    res.end(body);
  });
});
server.listen(Number(process.env.BENCH_PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

const ROOT = join(import.meta.dirname, '..');
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = 20;
const PROTOCOL = '2025-11-25';

console.log(
  `machine: ${machine()}; ${new Date().toISOString().slice(0, 10)}; ${DURATION}s per run, ${CONNECTIONS} connections, ${ROUNDS} rounds`,
);

const base = await mkdtemp(join(tmpdir(), 'strata-bench-mcp-'));
const strata = await startChild(ROOT, base, [
  join(ROOT, 'dist/bin/strata.js'),
  'serve',
  '--dir',
  join(ROOT, 'examples/roboco'),
  '--no-watch',
]);
try {
  // 1. One MCP session, and the two requests for the same prompt.
  const mcpHeaders: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const init = await fetch(`${strata.url}/mcp`, {
    method: 'POST',
    headers: mcpHeaders,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  });
  mcpHeaders['mcp-session-id'] = init.headers.get('mcp-session-id')!;
  mcpHeaders['mcp-protocol-version'] = PROTOCOL;
  await fetch(`${strata.url}/mcp`, {
    method: 'POST',
    headers: mcpHeaders,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  const get = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'prompts/get',
    params: { name: 'developer', arguments: { team: 'platform' } },
  });
  const path = '/api/prompts/developer?team=platform';
  const mcpRes = await fetch(`${strata.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: get });
  const apiRes = await fetch(strata.url + path, { headers: { accept: 'text/plain' } });
  const mcpBody = await mcpRes.text();
  const apiBody = await apiRes.text();
  const text = (JSON.parse(mcpBody) as { result: { messages: Array<{ content: { text: string } }> } }).result
    .messages[0]!.content.text;
  if (text !== apiBody) throw new Error('prompts/get and GET /api/prompts answer different texts');

  const bareMcp = await startChild(ROOT, base, ['-e', BARE_SERVER], {
    BENCH_BODY: mcpBody,
    BENCH_HEADERS: JSON.stringify(replayHeaders(mcpRes.headers)),
  });
  const bareApi = await startChild(ROOT, base, ['-e', BARE_SERVER], {
    BENCH_BODY: apiBody,
    BENCH_HEADERS: JSON.stringify(replayHeaders(apiRes.headers)),
  });
  try {
    const runs = {
      mcp: () => load(strata, '/mcp', { method: 'POST', body: get, headers: mcpHeaders }),
      api: () => load(strata, path, { headers: { accept: 'text/plain' } }),
      bareMcp: () => load(bareMcp, '/mcp', { method: 'POST', body: get, headers: mcpHeaders }),
      bareApi: () => load(bareApi, path, { headers: { accept: 'text/plain' } }),
    };
    // Warm-up of each, then rounds that alternate them, so machine noise hits all alike.
    for (const run of Object.values(runs)) await run().catch(() => undefined);
    const results: Record<keyof typeof runs, Load[]> = {
      mcp: [],
      api: [],
      bareMcp: [],
      bareApi: [],
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of Object.entries(runs) as Array<[keyof typeof runs, () => Promise<Load>]>) {
        const r = await run();
        if (r.errors) console.log(`${name}: ${r.errors} errors`);
        results[name].push(r);
      }
    }
    const show = (rs: Load[]) =>
      [
        rs.map((r) => fmt(r.rps)).join(' / '),
        `${rs.map((r) => r.p99).join(' / ')} ms`,
        `${rs.map((r) => fmt(r.cpuUs)).join(' / ')} µs`,
      ] as const;
    const ratio = (a: Load[], b: Load[], key: 'rps' | 'cpuUs') =>
      a.map((r, i) => (r[key] / b[i]![key]).toFixed(2)).join(' / ');
    console.log(
      `\nthe prompt: developer, team platform (${Buffer.byteLength(apiBody)} B of text; ${Buffer.byteLength(mcpBody)} B as a JSON-RPC answer)\n`,
    );
    console.log(
      '| request | strata req/s | strata p99 | strata CPU a request | bare node:http req/s | bare p99 | bare CPU a request | req/s ratio | CPU ratio |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    const row = (label: string, s: Load[], b: Load[]) =>
      console.log(
        `| ${label} | ${show(s).join(' | ')} | ${show(b).join(' | ')} | ${ratio(s, b, 'rps')} | ${ratio(s, b, 'cpuUs')} |`,
      );
    row('MCP `prompts/get` (POST /mcp, one session)', results.mcp, results.bareMcp);
    row(`\`GET ${path}\`, text`, results.api, results.bareApi);
    console.log(
      `\nMCP prompts/get against GET /api/prompts: req/s ${ratio(results.mcp, results.api, 'rps')}; CPU a request ${ratio(results.mcp, results.api, 'cpuUs')}`,
    );
  } finally {
    await bareMcp.stop();
    await bareApi.stop();
  }
} finally {
  await strata.stop();
  await rm(base, { recursive: true, force: true });
}

// --- internal ---

interface Load {
  rps: number;
  p99: number;
  errors: number;
  /** The server process's CPU time per answered request, in µs (steadier than the rate on a busy machine). */
  cpuUs: number;
}

async function load(
  server: Child,
  path: string,
  options: { method?: string; body?: string; headers: Record<string, string> },
): Promise<Load> {
  const before = server.cpuMs();
  const result = await autocannon({
    url: server.url + path,
    connections: CONNECTIONS,
    duration: DURATION,
    ...options,
  });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    cpuUs: ((server.cpuMs() - before) * 1000) / Math.max(1, result.requests.total),
  };
}
