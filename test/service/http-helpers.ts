// Shared helpers for the service's HTTP tests: a service on 127.0.0.1 port 0 and a tiny fetch client.
import { openStore, type Store } from '../../src/store/store.js';
import { createService, type CreateServiceOptions, type Service } from '../../src/service/app.js';

export const CLIENT = { clientId: 'qa-client', clientSecret: 'qa-secret-123', projectId: 'qa-project' };

/** A syntactically long-form did:ion (46-character suffix plus encoded data) for linking tests. */
export function fakeIonDid(n: number): { longDid: string; shortDid: string } {
  const suffix = `EiA${String(n).padStart(43, 'x')}`;
  return { longDid: `did:ion:${suffix}:eyJkZWx0YSI6e319`, shortDid: `did:ion:${suffix}` };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface CallOptions {
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
  /** Send `body` as it is (a string) instead of JSON-encoding it. */
  raw?: boolean;
}

export interface Harness {
  service: Service;
  store: Store;
  url: string;
  call(method: string, path: string, options?: CallOptions): Promise<Reply>;
  token(scopes?: string[] | string, client?: { clientId: string; clientSecret: string }): Promise<string>;
  close(): Promise<void>;
}

export async function callUrl(url: string, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = options.raw ? String(options.body) : JSON.stringify(options.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(url + path, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export async function startService(options: Partial<CreateServiceOptions> = {}): Promise<Harness> {
  const store = options.store ?? (await openStore());
  const service = await createService({ env: CLIENT, rateLimit: false, ...options, store });
  const url = await service.listen({ port: 0, host: '127.0.0.1' });
  const call = (method: string, path: string, o?: CallOptions) => callUrl(url, method, path, o);
  return {
    service,
    store,
    url,
    call,
    async token(scopes, client = CLIENT) {
      const body: Record<string, unknown> = { clientId: client.clientId, clientSecret: client.clientSecret };
      if (scopes !== undefined) body.scopes = scopes;
      const res = await call('POST', '/api/v1/auth/token', { body });
      if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
      return res.json.accessToken as string;
    },
    async close() {
      await service.close();
      if (!options.store) await store.close();
    },
  };
}

/** Asserts the RFC 9457 shape and returns the body. */
export function expectProblem(reply: Reply, status: number, code: string): Record<string, any> {
  const ct = reply.headers.get('content-type') ?? '';
  if (reply.status !== status || !ct.startsWith('application/problem+json') || reply.json?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${reply.status} ${ct} ${reply.text.slice(0, 300)}`);
  }
  const p = reply.json;
  for (const k of ['type', 'title', 'detail', 'instance']) if (typeof p[k] !== 'string') throw new Error(`problem lacks ${k}`);
  if (p.status !== status) throw new Error('problem status differs from HTTP status');
  return p;
}
