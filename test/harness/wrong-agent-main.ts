// The deliberately wrong agent of the conformance tests (wrong-agent.ts) as a process, for the
// README's worked example: `node --import tsx test/harness/wrong-agent-main.ts [fault,…]` prints
// its DID and an invitation URL (streamlined-vc), then serves until stopped.
import { startWrongAgent, type WrongAgentFault } from './wrong-agent.js';

const faults = (process.argv[2] ?? '').split(',').filter(Boolean) as WrongAgentFault[];
const agent = await startWrongAgent(faults);
process.stdout.write(`${agent.did}\n${agent.invitationUrl()}\n`);
const stop = () => void agent.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
