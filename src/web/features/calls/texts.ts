/** The /dashboard call panel's texts (contract, "Calls"); the specified Generate Identity Code screen's are CODES_TEXT. */
export const CALL_PANEL_TEXT = {
  title: "Call with a customer",
  customerRefLabel: "Customer reference",
  customerRefHint:
    "Your organisation's number for the customer (not an e-mail or phone number). With it, the code you generate belongs to your call, and the customer's app shows that you are calling.",
  customerRefRequired: "Enter the customer reference first.",
  weCalled: "We called the customer",
  theyCalled: "The customer called us",
  calling: (customerRef: string) => `Calling customer ${customerRef}`,
  calledUs: (customerRef: string) => `Customer ${customerRef} called us`,
  startedThroughApi: "Your organisation's phone system started this call in your name.",
  ask: "Ask the customer to confirm",
  end: "End call",
  notMine: "Not my call",
  waiting: "Waiting for the customer to answer in the app…",
  confirmed: (time: string) =>
    `The customer pressed Yes in the app at ${time}. A Yes alone is not enough to move money or change contact details.`,
  confirmedThrough: (keyName: string, time: string) =>
    `The customer pressed Yes through ${keyName} at ${time}. A Yes alone is not enough to move money or change contact details.`,
  denied:
    "The customer says they are not on a call with you. Stop: don't discuss or change the account, and follow your fraud procedure.",
  expired: "No answer in 2 minutes. Treat the caller as not checked.",
  colleague: "Another colleague is also on a call with this customer.",
  ended: "The call has ended.",
  disowned: "Thank you: the call is ended and your organisation's fraud team is alerted.",
  startFailed: "The call could not be started. Please try again.",
  actionFailed: "That did not work. Please try again.",
  liveLost: "The customer's answer cannot be shown right now; reconnecting…",
} as const;
