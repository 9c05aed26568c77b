import pg from 'pg';

const RECONNECT_FIRST_DELAY_MS = 100;
// Short: the instance serves from caches it cannot invalidate until LISTEN is back.
const RECONNECT_MAX_DELAY_MS = 1_000;
const HEARTBEAT_MS = 10_000;
/** Probes after 10 s of silence (the system default waits two hours): a peer gone without a FIN is found. */
export const TCP_KEEPALIVE = { keepAlive: true, keepAliveInitialDelayMillis: 10_000 };

export interface ListenerOptions {
  connectionString: string;
  channel: string;
  onMessage: (payload: string) => void;
  onReconnect: () => void;
  /** How often the connection must answer a query; one unanswered for as long counts as lost. */
  heartbeatMs?: number;
}

/**
 * One LISTEN connection that comes back after PostgreSQL restarts, fails over or the connection drops: it reconnects
 * with capped exponential backoff (jittered, so many instances do not reconnect in step) and LISTENs again. A
 * connection that dies without a word (a failover, a partition: no FIN, no error) is found by a heartbeat query.
 */
export class ReconnectingListener {
  private client: pg.Client | null = null;
  /** A connection attempt under way, ended by stop() so that it does not keep the process alive. */
  private connecting: pg.Client | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = false;
  private readonly heartbeatMs: number;

  constructor(private readonly options: ListenerOptions) {
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  }

  /** The first connection must succeed: an instance that cannot listen does not start. */
  async start(): Promise<void> {
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    await Promise.all([this.client, this.connecting].map((client) => client && closeClient(client)));
    this.client = null;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      application_name: 'tagport-listen',
      ...TCP_KEEPALIVE,
      connectionTimeoutMillis: 10_000,
    });
    // Errors are expected when the server goes away; without a handler they would crash the process.
    client.on('error', () => {});
    client.on('notification', (message) => {
      if (message.channel === this.options.channel) this.options.onMessage(message.payload ?? '');
    });
    this.connecting = client;
    try {
      await client.connect();
      await client.query(`LISTEN "${this.options.channel.replace(/"/g, '')}"`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    } finally {
      this.connecting = null;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    // Watched only once listening: a failed attempt is retried by reconnect(), not here as well.
    client.on('error', () => this.lose(client));
    client.on('end', () => this.lose(client));
    this.client = client;
    this.watch(client);
  }

  private watch(client: pg.Client): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    let answered = true;
    this.heartbeat = setInterval(() => {
      if (!answered) return this.lose(client);
      answered = false;
      client.query('select 1').then(
        () => {
          answered = true;
        },
        () => this.lose(client),
      );
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  private lose(client: pg.Client): void {
    if (this.stopped || this.client !== client) return;
    this.client = null;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    void closeClient(client);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const ceiling = Math.min(RECONNECT_MAX_DELAY_MS, RECONNECT_FIRST_DELAY_MS * 2 ** this.failures);
    this.retryTimer = setTimeout(() => void this.reconnect(), ceiling / 2 + Math.random() * (ceiling / 2));
    this.retryTimer.unref();
  }

  private async reconnect(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.connect();
    } catch {
      this.failures++;
      return this.scheduleReconnect();
    }
    this.failures = 0;
    if (!this.stopped) this.options.onReconnect();
  }
}

/** Ends a connection; one that went silent never answers, so its socket is dropped after a second regardless. */
async function closeClient(client: pg.Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    client.end().catch(() => {}),
    new Promise((resolve) => {
      timer = setTimeout(resolve, 1_000);
    }),
  ]);
  clearTimeout(timer);
  // Cast: pg's Client type does not declare its connection, whose socket is destroyed if end() did not close it.
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}
