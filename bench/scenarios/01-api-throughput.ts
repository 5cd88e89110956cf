/**
 * API throughput against a bare-Fastify baseline: the same autocannon load (50 connections by
 * default) on the hello world's GET / and on the portal's authenticated GET /api/auth/user-data.
 * The ratio tells how much of Fastify's raw speed survives session lookup, validation and the
 * plugins on the cheapest authenticated route.
 */
import { metric, type Scenario } from '../lib/types.ts';

const name = 'api-throughput';

const scenario: Scenario = {
  name,
  async run(context) {
    const hello = await context.load({ title: 'hello GET /', url: `${context.helloUrl}/` });
    context.log(
      `hello GET /: ${hello.requestsPerSecond.toFixed(0)} req/s, p99 ${hello.latencyMs.p99} ms`,
    );
    const userData = await context.load({
      title: 'portal GET /api/auth/user-data',
      url: `${context.baseUrl}/api/auth/user-data`,
      headers: { authorization: `Bearer ${context.customerToken}` },
    });
    context.log(
      `user-data: ${userData.requestsPerSecond.toFixed(0)} req/s, p99 ${userData.latencyMs.p99} ms`,
    );
    const connections = `${userData.connections} connections`;
    return {
      metrics: [
        metric(name, 'hello GET / throughput', hello.requestsPerSecond, 'req/s'),
        metric(name, 'user-data throughput', userData.requestsPerSecond, 'req/s'),
        metric(
          name,
          'user-data / hello ratio',
          Number((userData.requestsPerSecond / hello.requestsPerSecond).toFixed(3)),
          'x',
          { atLeast: 0.25 },
        ),
        metric(name, `user-data p99 latency (${connections})`, userData.latencyMs.p99, 'ms'),
        metric(name, `user-data p50 latency (${connections})`, userData.latencyMs.p50, 'ms'),
        metric(name, `hello p99 latency (${connections})`, hello.latencyMs.p99, 'ms'),
      ],
      details: { hello, userData },
    };
  },
};

export default scenario;
