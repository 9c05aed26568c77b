import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seriousViolations } from '../helpers/axe.js';
import { type DashboardInBrowser, openDashboard, SCREENSHOTS, signIn, tenantOwner } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/people.js';

describe('team page in a real browser', () => {
  let t: TestApp;
  let dashboard: DashboardInBrowser;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp('pglite', { runWorkers: false });
    dashboard = await openDashboard(t);
    ({ base, browser } = dashboard);
  }, 60_000);
  afterAll(() => dashboard?.close());

  it('an owner invites, the invitation is accepted in a second browser, the new member is listed; axe finds nothing serious', async () => {
    await tenantOwner(t, 'Acme Shop', 'owner@acme.test', 'Olivia Owner');

    // bypassCSP lets the test inject axe-core; the page's own CSP is tested in test/web/assets.test.ts.
    const ownerContext = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true });
    const owner = await ownerContext.newPage();
    await signIn(owner, base, 'owner@acme.test', PASSWORD);
    await owner.getByRole('link', { name: 'Team' }).click();
    await owner.waitForURL(`${base}/dashboard/team`);
    await owner.locator('#members-table tbody tr', { hasText: 'owner@acme.test' }).waitFor();
    await owner.locator('#invitations-table tbody', { hasText: 'No pending invitations.' }).waitFor();

    await owner.getByLabel('Email').fill('sam@acme.test');
    await owner.getByLabel('Role', { exact: true }).selectOption('admin');
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    await owner.locator('#invite-link:not([hidden])').waitFor();
    const link = (await owner.locator('#invite-link-url').textContent())!;
    expect(link).toMatch(new RegExp(`^${base}/invite/tgi_`));
    expect(await owner.locator('#invite-link-status').textContent()).toContain('No email was sent');
    await owner.locator('#invitations-table tbody tr', { hasText: 'sam@acme.test' }).waitFor();
    await owner.screenshot({ path: path.join(SCREENSHOTS, 'team-1200.png'), fullPage: true });
    expect(await seriousViolations(owner)).toEqual([]);

    // The invitee, in a browser of their own (no shared cookies), on a phone.
    const inviteeContext = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
    const invitee = await inviteeContext.newPage();
    await invitee.goto(link);
    await invitee.locator('#accept-form:not([hidden])').waitFor();
    expect(await invitee.locator('#invite-state').textContent()).toContain('Acme Shop');
    expect(await invitee.locator('#accept-email').inputValue()).toBe('sam@acme.test');
    await invitee.screenshot({ path: path.join(SCREENSHOTS, 'invite-390.png'), fullPage: true });
    expect(await seriousViolations(invitee)).toEqual([]);
    await invitee.getByLabel('Your name').fill('Sam Admin');
    await invitee.getByLabel('Choose a password').fill('short');
    await invitee.getByRole('button', { name: 'Accept and join' }).click();
    await invitee.locator('#accept-error:not([hidden])').waitFor();
    expect(await invitee.locator('#accept-password').getAttribute('aria-invalid')).toBe('true');
    await invitee.getByLabel('Choose a password').fill(PASSWORD);
    await invitee.getByRole('button', { name: 'Accept and join' }).click();
    await invitee.waitForURL(`${base}/dashboard`);
    expect(await invitee.locator('.who').textContent()).toContain('Sam Admin');

    // The link works once.
    const again = await inviteeContext.newPage();
    await again.goto(link);
    await again.locator('#invite-state', { hasText: 'already been accepted' }).waitFor();
    await again.close();

    await owner.reload();
    const row = owner.locator('#members-table tbody tr', { hasText: 'sam@acme.test' });
    await row.waitFor();
    expect(await row.getByRole('combobox').inputValue()).toBe('admin');
    await owner.locator('#invitations-table tbody', { hasText: 'No pending invitations.' }).waitFor();

    const phone = await ownerContext.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${base}/dashboard/team`);
    await phone.locator('#members-table tbody tr', { hasText: 'sam@acme.test' }).waitFor();
    // The table scrolls inside its frame; the page itself never gets wider than the phone.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    await phone.screenshot({ path: path.join(SCREENSHOTS, 'team-390.png'), fullPage: true });
    expect(await seriousViolations(phone)).toEqual([]);

    // Changing the role and removing go through the same table.
    const reloaded = owner.waitForResponse((response) => response.url().includes('/api/members/?'));
    await row.getByRole('combobox').selectOption('member');
    await reloaded;
    expect(await row.getByRole('combobox').inputValue()).toBe('member');
    owner.once('dialog', (dialog) => dialog.accept());
    await row.getByRole('button', { name: 'Remove Sam Admin' }).click();
    await owner.locator('#members-table tbody tr', { hasText: 'sam@acme.test' }).waitFor({ state: 'detached' });
    await invitee.reload();
    await invitee.waitForURL(/\/login/);

    await ownerContext.close();
    await inviteeContext.close();
  }, 120_000);
});
