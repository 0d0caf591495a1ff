// idsync/console: the web console. serviceConsole() is a createService plugin that mounts the
// service twin's console at /console; startWalletConsole() serves a wallet's console on its own port.
export { serviceConsole } from './service-console.js';
export type { ServiceConsoleOptions } from './service-console.js';
export type { Principal } from './sessions.js';
export { startWalletConsole } from './wallet-console.js';
export type { WalletConsole, WalletConsoleOptions } from './wallet-console.js';
