"""The JSON API, one router per concern, collected under `/api`."""

from fastapi import APIRouter

from backend.routes import chat, config, health

api_router = APIRouter(prefix="/api")
api_router.include_router(health.router)
api_router.include_router(config.router)
api_router.include_router(chat.router)
