import { describe, expect, it } from '@agent-tape/vitest'
import { planTrip, planTripStreamed } from '../src/agent.js'
import { findFlights, getWeather } from '../src/travel.js'

const REQUEST = 'Lisbon or Oslo this weekend?'

describe('trip planner', () => {
  it.tape('generate', async ({ tape }) => {
    const tools = tape.tools({ get_weather: getWeather, find_flights: findFlights })
    const plan = await planTrip(REQUEST, tools)

    expect(plan.steps).toEqual([['get_weather', 'get_weather'], ['find_flights'], []])
    expect(plan.text).toMatch(/Lisbon/)
    expect(tape).toReplayCleanly()
  })

  it.tape('stream', async ({ tape }) => {
    const tools = tape.tools({ get_weather: getWeather, find_flights: findFlights })
    const plan = await planTripStreamed(REQUEST, tools)

    expect(plan.steps).toBe(3)
    expect(plan.deltas).toBeGreaterThan(1)
    expect(plan.text).toBe('Go to Lisbon: 19°C and sunny, flight TP89 for 89 EUR.')
  })
})
