export * from './common.ts';
export * from './auth.ts';
export * from './staff.ts';
export * from './coverage.ts';
export * from './billing.ts';
export * from './cameras.ts';
export * from './livestream.ts';
export * from './activation.ts';
