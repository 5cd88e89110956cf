import { z } from 'zod';
import { emailAddress } from './common.ts';
import { staffPasswordRule } from './rules.ts';
import { accountAccess } from './team.ts';

export const roles = ['customer', 'team', 'admin'] as const;
export const role = z.enum(roles);
export type Role = z.infer<typeof role>;

export const requestLoginBody = z.object({ email: emailAddress });
export type RequestLoginBody = z.input<typeof requestLoginBody>;
export const requestLoginResponse = z.object({ message: z.string() });
export type RequestLoginResponse = z.infer<typeof requestLoginResponse>;

export const loginQuery = z.object({
  token: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{20,100}$/, 'That login link is not valid'),
});
export const tokenResponse = z.object({
  token: z.string(),
  expiresAt: z.string().describe('ISO time when the session ends at the latest'),
});
export type TokenResponse = z.infer<typeof tokenResponse>;

export const staffLoginBody = z.object({
  email: z.string().trim().min(1, 'Please enter both email and password').max(254),
  password: z.string().min(1, 'Please enter both email and password').max(200),
});
export type StaffLoginBody = z.infer<typeof staffLoginBody>;

/** The one-time link from `npm run staff -- add` (or `reset`) and the new password. */
export const staffSetPasswordBody = z.object({
  token: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{20,100}$/, 'This link is not valid any more'),
  password: z
    .string()
    .min(staffPasswordRule.minLength, staffPasswordRule.tooShortMessage)
    .max(staffPasswordRule.maxLength, 'That password is too long'),
});
export type StaffSetPasswordBody = z.infer<typeof staffSetPasswordBody>;

/** When staff open a customer's portal, the session carries this scope. */
export const impersonation = z.object({
  staffEmail: z.string(),
  staffRole: z.enum(['team', 'admin']),
  customerEmail: z.string(),
  expiresAt: z.string(),
});
export type Impersonation = z.infer<typeof impersonation>;

export const userDataResponse = z.object({
  data: z.object({
    email: z.string().describe('The customer e-mail, or the staff e-mail for a staff session'),
    role,
    customerId: z
      .string()
      .nullable()
      .describe('Set for customers and for staff viewing a customer'),
    impersonation: impersonation.nullable(),
    access: accountAccess
      .nullable()
      .describe('For a session inside a customer account: role, cameras and what it may do'),
  }),
});
export type UserDataResponse = z.infer<typeof userDataResponse>;
