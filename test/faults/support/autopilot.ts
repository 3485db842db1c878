/**
 * The service walks every step by itself a second after the previous one: in real time, or, on a
 * frozen clock, all within one advance.
 */
export const ONE_SECOND_AUTOPILOT = {
  kycSubmittedSeconds: 1,
  customerApprovedSeconds: 1,
  virtualAccountVerifiedSeconds: 1,
  depositAddressApprovedSeconds: 1,
  depositConfirmedSeconds: 1,
  tradeSettledSeconds: 1,
  paymentSettledSeconds: 1,
};
