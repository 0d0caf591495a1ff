// A pino-like logger for service tests: keeps every line it is given and lets a test await one.
import type { FastifyBaseLogger } from 'fastify';

export interface LogLine {
  level: string;
  data: Record<string, unknown>;
  msg?: string;
}

/** A pino-like logger that keeps what it is given and lets a test await a line. */
export function recordingLogger() {
  const lines: LogLine[] = [];
  const waiters: { match: (l: LogLine) => boolean; resolve: (l: LogLine) => void }[] = [];
  const logger: Record<string, unknown> = { level: 'info', silent: () => {} };
  for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace']) {
    logger[level] = (data: unknown, msg?: string) => {
      const line = { level, data: (typeof data === 'object' && data ? data : {}) as Record<string, unknown>, msg };
      lines.push(line);
      for (const w of [...waiters]) if (w.match(line)) waiters.splice(waiters.indexOf(w), 1), w.resolve(line);
    };
  }
  logger.child = () => logger;
  return {
    logger: logger as unknown as FastifyBaseLogger,
    lines,
    next: (match: (l: LogLine) => boolean) => new Promise<LogLine>((resolve) => waiters.push({ match, resolve })),
  };
}

