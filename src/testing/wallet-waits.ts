// Waiting for wallet state: a stored credential (and, for the timeout message, what the wallet
// holds and refused). Event based: the wallet emits credential-received / credential-refused.
import type { StoredCredential } from '../wallet/credential-store.js';
import type { Wallet } from '../wallet/wallet.js';
import type { WalletEventMap } from '../wallet/events.js';
import { untilTimeout, type WaitOptions } from './wait.js';

/**
 * Resolves with a credential the wallet holds that passes `predicate` (default: any): one
 * already stored, else the next one stored. Use the predicate to tell a later credential from an
 * earlier one (e.g. `c => c.status === 'valid' && c.claims.lastName === 'Hopper'`).
 */
export function waitForCredential(wallet: Wallet, predicate: (c: StoredCredential) => boolean = () => true, options: WaitOptions = {}): Promise<StoredCredential> {
  let held: StoredCredential[] = [];
  let refused: string[] = [];
  const safe = (c: StoredCredential) => {
    try {
      return predicate(c);
    } catch {
      return false;
    }
  };
  return untilTimeout<StoredCredential>(
    'a credential in the wallet matching the predicate',
    options,
    (resolve, reject, onCleanup) => {
      const onReceived = (e: WalletEventMap['credential-received']) => {
        held.push(e.credential);
        if (safe(e.credential)) resolve(e.credential);
      };
      const onRefused = (e: WalletEventMap['credential-refused']) => void refused.push(`${e.thid}: ${e.failedCheck}`);
      // Listen first, then look at what is stored, so nothing falls between the two.
      wallet.on('credential-received', onReceived);
      wallet.on('credential-refused', onRefused);
      onCleanup(() => {
        wallet.off('credential-received', onReceived);
        wallet.off('credential-refused', onRefused);
      });
      void (async () => {
        const stored = await wallet.credentials();
        held = [...stored, ...held.filter((c) => !stored.some((s) => s.id === c.id))];
        const found = stored.find(safe);
        if (found) resolve(found);
        refused = [...(await wallet.rejectedCredentials()).map((r) => `${r.thid}: ${r.failedCheck}`), ...refused];
      })().catch(reject);
    },
    () => {
      const list = held.map((c) => `${c.id} ${c.status} {${Object.keys(c.claims).join(', ')}}`);
      return `${held.length} credential(s)${list.length ? ` [${list.join('; ')}]` : ''}, ${refused.length} refused${refused.length ? ` [${refused.join('; ')}]` : ''}`;
    },
  );
}
