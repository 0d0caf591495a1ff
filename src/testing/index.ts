// idsync/testing: a QA testbed (the service twin and holder wallets in one process), a typed
// REST client, a webhook receiver, and helpers that wait for states without sleeping.
export { startTestbed } from './testbed.js';
export type { Testbed, TestbedOptions, TestbedService, AddWalletOptions, WalletMode } from './testbed.js';
export type { TestbedMediator } from './testbed-mediator.js';
export { startServiceTwin, MEMORY_SERVICE_URL } from './service-twin.js';
export type { ServiceTwin, StartTwinOptions, TwinServiceOptions } from './service-twin.js';
export { createServiceClient } from './rest-client.js';
export type {
  ServiceClient, ServiceClientOptions, User, UpsertedUser, SyncContext, Invitation, SyncStart, IssuanceWorkflow,
  SentInvitation, OutboxEntry, FlatDatapoints, NestedDatapoints, WorkflowInput, Destination, WebhookSubscription,
} from './rest-client.js';
export { startWebhookReceiver, waitForWebhook, webhookMatches } from './webhooks.js';
export type { WebhookReceiver, WebhookReceiverOptions, ReceivedWebhook, WebhookEvent, WebhookMatch } from './webhooks.js';
export { waitForSyncContext, waitForUser, waitForWorkflowStatus, describeSyncContext } from './service-waits.js';
export { waitForCredential } from './wallet-waits.js';
export { nextOutboxEntry } from './outbox.js';
export type { OutboxFilter, OutboxSource } from './outbox.js';
export { connectUser, syncDatapoints, clientOf } from './flows.js';
export type { ConnectedUser, SyncResult, ClientSource } from './flows.js';
export { waitForState, untilTimeout, stopWaiting, defaultTimeoutMs, DEFAULT_TIMEOUT_MS } from './wait.js';
export type { WaitOptions } from './wait.js';
export { changeSignal } from './changes.js';
export type { ChangeFeed, ChangeSignal } from './changes.js';
export { appFetch, routeFetch } from './inject-fetch.js';
export { faultInjector, seededRandom, peekMessage, FAULT_KINDS } from './fault-plan.js';
export type { FaultPlan, FaultRule, FaultKind, FaultInjector, AppliedFault, FaultSubject } from './fault-plan.js';
export { faultyTransport, faultyInbound } from './faulty-transport.js';
export { faultSwitch } from './fault-switch.js';
export type { FaultSwitch } from './fault-switch.js';
export { faultyServiceAgent } from './faulty-service-agent.js';
export type { FaultyTransport, FaultyTransportOptions } from './faulty-transport.js';
export { fencedStore } from './fenced-store.js';
export type { FencedStore } from './fenced-store.js';
export { startFaultProxy } from './fault-proxy.js';
export type { FaultProxy, FaultProxyOptions } from './fault-proxy.js';
export { runSoak, soakFaults } from './soak.js';
export type { SoakOptions, SoakResult, SoakFlow, SoakStep } from './soak.js';
export { trace } from './trace.js';
export type { TraceOptions, TraceResult, TraceSource } from './trace.js';
