// A testbed whose twin serves the console, and a signed-in session to call it with (in-process
// through fastify's inject, or over the twin's socket).
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { systemClock } from '../../src/clock.js';
import { serviceConsole, type ServiceConsoleOptions } from '../../src/console/index.js';
import { messageLog, type LoggedMessage } from '../../src/store/messages.js';
import type { Store } from '../../src/store/store.js';
import { faultSwitch, startTestbed, type FaultSwitch, type Testbed, type TestbedOptions } from '../../src/testing/index.js';

export const ADA = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };

export interface ConsoleBed {
  bed: Testbed;
  app: FastifyInstance;
  faults: FaultSwitch;
  /** The signed-in session's Cookie header. */
  cookie: string;
  /** GET/POST as the signed-in browser would (Accept: text/html unless given). */
  call(method: 'GET' | 'POST', url: string, o?: Omit<InjectOptions, 'method' | 'url'>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function signIn(app: FastifyInstance, clientId = 'qa-client', clientSecret = 'qa-client-secret'): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/console/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ clientId, clientSecret, next: '/console/users' }).toString(),
  });
}

export const cookieOf = (res: LightMyRequestResponse): string => String(res.headers['set-cookie'] ?? '').split(';')[0]!;

export async function startConsoleBed(o: { testbed?: TestbedOptions; console?: ServiceConsoleOptions } = {}): Promise<ConsoleBed> {
  const faults = faultSwitch();
  let app: FastifyInstance | undefined;
  let bed: Testbed | undefined;
  bed = await startTestbed({
    faults,
    ...o.testbed,
    service: {
      ...o.testbed?.service,
      plugins: [
        serviceConsole({ faults, wallet: () => bed!.wallets[0]!, ...o.console }),
        (a) => void (app = a as unknown as FastifyInstance),
      ],
    },
  });
  const login = await signIn(app!);
  const cookie = cookieOf(login);
  return {
    bed,
    app: app!,
    faults,
    cookie,
    call: (method, url, extra = {}) =>
      app!.inject({ method, url, ...extra, headers: { accept: 'text/html', cookie, ...(extra.headers ?? {}) } }),
    close: () => bed!.close(),
  };
}

/** The first logged message `pick` accepts, looked for until `guardMs` has passed. */
export async function logged(store: Store, pick: (m: LoggedMessage) => boolean, guardMs = 20_000): Promise<LoggedMessage> {
  const until = Date.now() + guardMs;
  for (;;) {
    const found = (await messageLog(store, systemClock).list()).find(pick);
    if (found || Date.now() > until) return found!;
    await new Promise((r) => setTimeout(r, 100));
  }
}
