// The embeddable verification widget (issue 4).
export {};
