"""The JSON API, one router per concern, collected under `/api`."""

from fastapi import APIRouter

from backend.routes import health

api_router = APIRouter(prefix="/api")
api_router.include_router(health.router)
