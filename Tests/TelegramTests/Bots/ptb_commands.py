"""A command bot as python-telegram-bot's documentation writes one: CommandHandlers,
arguments from context.args, and the command menu set at start-up (post_init)."""
import logging
import os

from telegram import BotCommand, Update
from telegram.ext import Application, CommandHandler, ContextTypes

logging.basicConfig(format="%(asctime)s - %(name)s - %(levelname)s - %(message)s", level=logging.INFO)


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    await update.message.reply_text(f"Hello {update.effective_user.first_name}! Try /caps or /sum.")


async def caps(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if not context.args:
        await update.message.reply_text("Usage: /caps <text>")
        return
    await update.message.reply_text(" ".join(context.args).upper())


async def add(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    try:
        total = sum(int(argument) for argument in context.args)
    except ValueError:
        await update.message.reply_text("Usage: /sum <numbers>")
        return
    await update.message.reply_markdown_v2(f"The sum is *{total}*")


async def menu(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    commands = await context.bot.get_my_commands()
    await update.message.reply_text("Commands: " + ", ".join("/" + c.command for c in commands))


async def post_init(application: Application) -> None:
    await application.bot.set_my_commands(
        [BotCommand("start", "say hello"), BotCommand("caps", "shout"), BotCommand("sum", "add numbers"),
         BotCommand("menu", "list the commands")])


def main() -> None:
    base = os.environ["TELEGRAM_API"]
    application = (
        Application.builder().token(os.environ["BOT_TOKEN"]).base_url(base + "/bot").base_file_url(base + "/file/bot")
        .post_init(post_init).build()
    )
    application.add_handler(CommandHandler("start", start))
    application.add_handler(CommandHandler("caps", caps))
    application.add_handler(CommandHandler("sum", add))
    application.add_handler(CommandHandler("menu", menu))
    application.run_polling(allowed_updates=Update.ALL_TYPES)


if __name__ == "__main__":
    main()
