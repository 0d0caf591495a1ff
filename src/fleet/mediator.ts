// The mediator of a mediated fleet run (`idsync fleet --mediated`): idsync's standalone mediator
// on 127.0.0.1, port 0, with an in-memory store, started in the coordinating thread for the run;
// or a running mediator named by its invitation URL or DID (nothing to start or stop then).
import { startMediator } from '../mediator/server.js';
import { openStore } from '../store/store.js';

export interface FleetMediator {
  /** What the wallets are given (createWallet's `mediator`). */
  invitationUrl: string;
  close(): Promise<void>;
}

export async function fleetMediator(mediated: boolean | string | undefined): Promise<FleetMediator | undefined> {
  if (!mediated) return undefined;
  if (typeof mediated === 'string') return { invitationUrl: mediated, close: async () => undefined };
  const store = await openStore();
  // A fleet's wallets all run on this machine: queues large enough that none refuses under load.
  const running = await startMediator({ store, policy: { maxQueue: 100_000 } });
  return {
    invitationUrl: running.invitationUrl,
    async close() {
      await running.close();
      await store.close();
    },
  };
}
