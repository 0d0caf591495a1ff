// idsync/console: the web console. serviceConsole() is a createService plugin that mounts the
// service twin's console at /console; startWalletConsole() and startMediatorConsole() serve a
// wallet's and the standalone mediator's console on a port of their own.
export { serviceConsole } from './service-console.js';
export type { ServiceConsoleOptions } from './service-console.js';
export type { Principal } from './sessions.js';
export { startWalletConsole } from './wallet-console.js';
export type { WalletConsole, WalletConsoleOptions } from './wallet-console.js';
export { startMediatorConsole } from './mediator-console.js';
export type { MediatorConsole, MediatorConsoleOptions } from './mediator-console.js';
