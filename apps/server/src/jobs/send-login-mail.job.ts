import { z } from 'zod';
import {
  loginMailJobName,
  type LoginMailRequest,
  type LoginMailService,
} from '../modules/auth/login-mail.service.ts';
import type { JobDefinition } from './job-runner.ts';

/**
 * Queued by `request-login`: looks the address up and hands a customer's login e-mail to the
 * mailer (docs/decisions/062, 104). Workers fetch these jobs 50 at a time and look every 0.5 s,
 * so a morning's burst of sign-ins is mailed at tens a second and the first within a second; the
 * work still starts at a poll, not at the request (decision 062). In SMTP mode the mail queue
 * retries the mail server for as long as the e-mail is worth sending; the job itself fails only
 * when the database does, and is retried within seconds. A second run of one job (a worker that
 * died before pg-boss recorded the first) queues no second e-mail (`login:<job id>`).
 */
export function sendLoginMailJob(deps: {
  loginMail: LoginMailService;
}): JobDefinition<LoginMailRequest> {
  return {
    name: loginMailJobName,
    payload: z.object({
      email: z.string(),
      requestedIp: z.string(),
      requestedAt: z.iso.datetime({ offset: true }).optional(),
    }),
    retry: { limit: 4, delaySeconds: 2, isBackoff: true },
    batchSize: 50,
    pollingIntervalSeconds: 0.5,
    async handle(request, job) {
      await deps.loginMail.sendLoginMail(request, job);
    },
  };
}
