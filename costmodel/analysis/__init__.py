"""Questions asked of the model: uncertainty (tornado, Monte Carlo, the equal-work Monte Carlo), break-even
points and crossings, timelines, slowdowns and renting instead of buying. Above the API."""
