import type { Reply, Schemas } from './api-types.js';
import { $, api, el, messageOf, type Child } from './ui.js';

// A container's Google tagging servers (runtime sgtm): their state, replicas, preview URL and recent output.

const STATE_CLASS: Record<string, string> = { available: 'yes', failed: 'no', unknown: 'no' };

function fact(term: string, ...description: Child[]) {
  return [el('dt', {}, term), el('dd', {}, ...description)];
}

export async function showTaggingServer(container: Schemas['Container']) {
  const section = $('#tagging-server');
  const server = container.tagging_server;
  section.hidden = !server;
  if (!server) return;
  const { replicas } = server;
  $('#tagging-server-facts').replaceChildren(
    ...fact('State', el('span', { class: STATE_CLASS[server.state] ?? '' }, server.state)),
    ...(server.reason ? fact('Why', server.reason) : []),
    ...fact(
      'Replicas',
      `${replicas.ready} ready of ${replicas.desired}`,
      replicas.max > replicas.min ? ` (scales ${replicas.min}–${replicas.max})` : '',
    ),
    ...fact('Version', el('code', {}, server.version)),
    ...fact('Preview server', el('code', {}, server.preview_url)),
    ...fact('Container config', el('code', {}, container.config), ' (sealed; send a new one to change it)'),
    ...fact('Runs on', server.driver === 'kubernetes' ? 'Kubernetes' : 'supervised processes'),
  );
  const logs = $('#tagging-server-logs');
  try {
    const { lines } = await api<Reply<'/api/containers/{id}/tagging-server/logs/'>>(
      'GET',
      `/api/containers/${container.id}/tagging-server/logs/?lines=50`,
    );
    logs.textContent = lines.length
      ? lines.map((line) => `${line.at.slice(11, 19)} ${line.replica} ${line.line}`).join('\n')
      : 'Nothing printed yet.';
  } catch (error) {
    logs.textContent = `The output cannot be read now: ${messageOf(error)}`;
  }
}
