import { z } from 'zod';
import {
  loginMailJobName,
  type LoginMailRequest,
  type LoginMailService,
} from '../modules/auth/login-mail.service.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Queued by `request-login`: looks the address up and e-mails a login link to a customer
 * (docs/decisions/062). A refused delivery is retried four times with back-off, about 15 s,
 * 30 s, 1 and 2 minutes apart (each with up to as much again of jitter), so it gives up within
 * about 8 minutes, before a person would want the link anyway; then pg-boss marks it `failed`.
 * It starts at the workers' next poll (within 2 s), not at once: work that followed each
 * customer's request at once would slow the next request measurably (decision 062).
 */
export function sendLoginMailJob(deps: {
  loginMail: LoginMailService;
}): JobDefinition<LoginMailRequest> {
  return {
    name: loginMailJobName,
    payload: z.object({ email: z.string(), requestedIp: z.string() }),
    retry: { limit: 4, delaySeconds: 15, isBackoff: true },
    async handle(request) {
      await deps.loginMail.sendLoginMail(request);
    },
  };
}
