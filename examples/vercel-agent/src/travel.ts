/** The travel tools: forecasts and fares from a fixed table, standing in for real APIs. */
const FORECAST: Record<string, { tempC: number; sky: string }> = {
  Lisbon: { tempC: 19, sky: 'sunny' },
  Oslo: { tempC: -3, sky: 'snow' },
}

const FARES: Record<string, number> = { 'Paris-Lisbon': 89, 'Paris-Oslo': 142 }

export async function getWeather({ city }: { city: string }) {
  return FORECAST[city] ?? { error: `no forecast for ${city}` }
}

export async function findFlights({ from, to }: { from: string; to: string }) {
  const fare = FARES[`${from}-${to}`]
  return fare === undefined ? [] : [{ flight: `TP${fare}`, from, to, priceEur: fare }]
}
