// Store keys that sort by time: a millisecond count zero-padded to 15 digits (good until the year
// 33658), so a range query (`lt: timeKey(now)`) reads only what is due or expired.
export const TIME_KEY_DIGITS = 15;

export const timeKey = (ms: number): string => String(Math.max(0, Math.floor(ms))).padStart(TIME_KEY_DIGITS, '0');
