// Past what a page shows, the workflows view and a user's page show the newest workflows and say
// how many older ones they leave out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleBed, type ConsoleBed } from './helpers.js';

const GRACE = { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09' };
// The workflows view lists 500.
const COUNT = 501;

let c: ConsoleBed;
let made: { id: string }[];
const pause = () => new Promise((r) => setTimeout(r, 5));

beforeAll(async () => {
  c = await startConsoleBed();
  await c.bed.service.client.putUser('ada', { settings: { isSyncOn: false } });
  const make = () => c.bed.service.client.createWorkflow({ userId: 'ada', datapoints: GRACE });
  // The oldest and the newest a few milliseconds apart from the rest: the index orders by creation time.
  made = [await make()];
  await pause();
  for (let i = 0; i < COUNT - 2; i++) made.push(await make());
  await pause();
  made.push(await make());
}, 120_000);
afterAll(() => c.close());

describe('the newest workflows', () => {
  it('are the ones the workflows view lists, with how many older ones it leaves out', async () => {
    const body = (await c.call('GET', '/console/workflows?fragment=1')).body;
    expect(body).toContain(`${COUNT} workflows`);
    expect(body).toContain(`/console/workflows/${made.at(-1)!.id}`);
    expect(body).not.toContain(`/console/workflows/${made[0]!.id}`);
    expect(body).toContain('and 1 older workflows');
  });

  it("are the ones a user's page shows, with how many older ones it leaves out", async () => {
    const body = (await c.call('GET', '/console/users/ada?fragment=1')).body;
    expect(body).toContain(`/console/workflows/${made.at(-1)!.id}`);
    expect(body).not.toContain(`/console/workflows/${made[0]!.id}`);
    expect(body).toContain(`and ${COUNT - 20} older workflows`);
  });
});
