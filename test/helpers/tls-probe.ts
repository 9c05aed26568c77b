import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';

/** Resolves every name to 127.0.0.1, as Node's lookup option wants it (one address, or all of them). */
export const loopbackLookup = ((
  _hostname: string,
  options: { all?: boolean },
  callback: (...args: unknown[]) => void,
) => (options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4))) as never;

/** The certificate a TLS port on loopback presents for `servername`, and the protocol agreed (not verified: tests compare it). */
export function presentedWithProtocol(port: number, servername: string, alpn: string[] = ['http/1.1']) {
  return new Promise<{ certificate: X509Certificate; protocol: string | false }>((resolve, reject) => {
    const socket = tls.connect(
      { host: '127.0.0.1', port, servername, rejectUnauthorized: false, ALPNProtocols: alpn },
      () => {
        const certificate = new X509Certificate(socket.getPeerX509Certificate()!.raw);
        resolve({ certificate, protocol: socket.alpnProtocol ?? false });
        socket.end();
      },
    );
    socket.on('error', reject);
  });
}

/** The certificate a TLS port on loopback presents for `servername`. */
export async function presented(port: number, servername: string): Promise<X509Certificate> {
  return (await presentedWithProtocol(port, servername)).certificate;
}
