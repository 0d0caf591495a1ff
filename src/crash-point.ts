// A test hook for crash tests: named points in the protocol steps where a
// process can be made to die abruptly, as `kill -9` would, so that a test can kill the service or
// a wallet at each step of a flow and check what the restart does. Points are named by the
// durable-steps engine (router/steps): `send:<message>` once the message's state is stored
// and before it goes out, `sent:<message>` once it went out (e.g. `send:offer-credential`,
// `sent:issue-credential.ack`).
//
// Child processes: IDSYNC_TEST_CRASH_AT=<point> makes the process SIGKILL itself the first time
// it reaches <point> (and IDSYNC_TEST_CRASH_AT is ignored when unset: no cost in production).
// In-process (the testbed): a party is given its own hook (testbed crashAt()).

export type CrashPoint = (step: string) => void;

/** The hook from IDSYNC_TEST_CRASH_AT, or undefined when it is not set. */
export function envCrashPoint(env: NodeJS.ProcessEnv = process.env): CrashPoint | undefined {
  const at = env.IDSYNC_TEST_CRASH_AT;
  if (!at) return undefined;
  return (step) => {
    if (step !== at) return;
    process.stderr.write(`idsync: IDSYNC_TEST_CRASH_AT=${at}: killing this process\n`);
    process.kill(process.pid, 'SIGKILL');
  };
}
