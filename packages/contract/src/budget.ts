/** Budget protection (decision 095): a camera's paused data resumed, and the account's spend alert. */
import { z } from 'zod';

export const dataCapResumeResponse = z.object({
  resumedAt: z
    .string()
    .nullable()
    .describe(
      "When the camera's data was let through again until the end of the month (ISO instant); " +
        'null when it was not paused',
    ),
});
export type DataCapResumeResponse = z.infer<typeof dataCapResumeResponse>;
