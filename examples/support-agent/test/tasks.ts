export const TASKS: Record<string, string> = {
  'issue-412':
    'Ticket #412 from Ada Lovelace: "I was charged twice for invoice INV-412 on November 2nd. Please refund the extra charge."',
}
