import { html, type Html } from './html.js';

/** The Team page: members with their roles, the invitation form and pending invitations (loaded by team.js). */
export const teamPage = (): Html => html`
<h1>Team</h1>
<p>The people who sign in to this tenant. Members read everything and run scans, admins also change configuration and invite people, owners also handle billing and the owner role.</p>
<section aria-labelledby="invite-heading">
  <h2 id="invite-heading">Invite someone</h2>
  <form id="invite-form" class="inline" novalidate>
    <label for="invite-email">Email</label>
    <input id="invite-email" name="email" type="email" required maxlength="254" autocomplete="off" placeholder="name@example.com">
    <label for="invite-role">Role</label>
    <select id="invite-role" name="role">
      <option value="member" selected>member: read, scans</option>
      <option value="admin">admin: changes</option>
      <option value="owner">owner: also billing and members</option>
    </select>
    <button type="submit">Send invitation</button>
    <p class="error" role="alert" id="invite-error" hidden></p>
  </form>
  <section id="invite-link" class="notice" hidden aria-live="polite" aria-labelledby="invite-link-heading">
    <h3 id="invite-link-heading">Invitation created</h3>
    <p id="invite-link-status"></p>
    <div class="token-row"><code id="invite-link-url"></code> <button type="button" id="copy-invite">Copy link</button> <span id="copy-invite-status" role="status"></span></div>
    <button type="button" id="dismiss-invite" class="link">Done</button>
  </section>
</section>
<section aria-labelledby="members-heading">
  <h2 id="members-heading">Members</h2>
  <p class="error" role="alert" id="members-error" hidden></p>
  <div class="table-wrap"><table id="members-table"><caption class="sr-only">Members</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Two-factor</th><th scope="col">Joined</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
    <tbody><tr><td colspan="6">Loading…</td></tr></tbody></table></div>
</section>
<section aria-labelledby="pending-heading">
  <h2 id="pending-heading">Pending invitations</h2>
  <p class="error" role="alert" id="invitations-error" hidden></p>
  <div class="table-wrap"><table id="invitations-table"><caption class="sr-only">Pending invitations</caption>
    <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Invited by</th><th scope="col">Expires</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
    <tbody><tr><td colspan="5">Loading…</td></tr></tbody></table></div>
</section>`;

/** The page an invitation link opens: team.js reads the token from the address and fills in the form. */
export const invitePage = (): Html => html`
<section class="narrow">
  <h1>Join a team on Tagport</h1>
  <div id="invite-state" role="status" aria-live="polite"><p>Loading the invitation…</p></div>
  <form id="accept-form" class="stack" novalidate hidden>
    <label for="accept-email">Email</label>
    <input id="accept-email" type="email" readonly autocomplete="username">
    <div id="new-account-fields" class="stack">
      <label for="accept-name">Your name</label>
      <input id="accept-name" name="name" maxlength="200" autocomplete="name">
    </div>
    <label for="accept-password" id="accept-password-label">Choose a password <span class="hint">(at least 12 characters)</span></label>
    <input id="accept-password" name="password" type="password" required autocomplete="new-password">
    <button type="submit">Accept and join</button>
    <p class="error" role="alert" id="accept-error" hidden></p>
  </form>
</section>`;
