/**
 * The baseline for the throughput scenario: a bare Fastify hello world with the logger off, so
 * the portal's numbers can be read as a fraction of what Fastify itself does on this machine.
 */
import fastify from 'fastify';

const app = fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));

let isClosing = false;
const close = async () => {
  if (isClosing) return;
  isClosing = true;
  await app.close();
  process.exit(0);
};
process.on('SIGINT', () => void close());
process.on('SIGTERM', () => void close());

const port = Number(process.env.PORT ?? 3001);
const host = process.env.HOST ?? '127.0.0.1';
await app.listen({ port, host });
console.log(`Hello server is running at http://${host}:${port}`);
